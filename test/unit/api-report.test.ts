/**
 * The public API reports (api/*.api.md, docs/public-api.md) guard the surface only while something
 * compares them: `npm test` runs `npm run api:check` (scripts/test.sh), which runs
 * scripts/api-report.mts. This runs that command on a copy of the built package whose surface was
 * changed (an export added to the SDK, a `<type>Provider` that old states load removed from the
 * runtime entry) and checks that it fails naming both reports, with the diff.
 */
import { cp, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { buildPackage, programFailure } from "../support/tools.mts";

const root = resolve(__dirname, "../..");
let copy: string;

beforeAll(async () => {
  await buildPackage();
  copy = await mkdtemp(join(tmpdir(), "api-report-"));
  // What the check reads: package.json's exports, its config, the reports and the declarations.
  for (const file of ["package.json", "api-extractor.json", "tsconfig.base.json", "api"]) {
    await cp(join(root, file), join(copy, file), { recursive: true });
  }
  for (const dir of ["bin/sdk", "bin/provider"]) {
    await cp(join(root, dir), join(copy, dir), {
      recursive: true,
      filter: (source) => !/\.(js|map)$/.test(source),
    });
  }
  await symlink(join(root, "node_modules"), join(copy, "node_modules"), "dir");
}, 600_000);

afterAll(async () => {
  if (copy) await rm(copy, { recursive: true, force: true });
});

it("npm test runs the check of the reports, before the tests", async () => {
  const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> };
  expect(pkg.scripts["api:check"]).toBe("node scripts/api-report.mts check");
  const testScript = await readFile(join(root, "scripts/test.sh"), "utf8");
  const checks = testScript.slice(testScript.indexOf('if [ "$#" -eq 0 ]'), testScript.indexOf("\nfi\n"));
  expect(checks).toContain("npm run --silent api:check");
});

it("fails when an entry point's surface differs from its report, and says what to do", async () => {
  const sdkTypes = join(copy, "bin/sdk/index.d.ts");
  await writeFile(sdkTypes, `${await readFile(sdkTypes, "utf8")}export declare const addedByAccident: number;\n`);
  const providerTypes = join(copy, "bin/provider/index.d.ts");
  const runtime = await readFile(providerTypes, "utf8");
  const withoutTranscript = runtime.replace(/^.*export declare const transcriptProvider.*$/m, "");
  expect(withoutTranscript).not.toBe(runtime);
  await writeFile(providerTypes, withoutTranscript);

  const args = (
    JSON.parse(await readFile(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }
  ).scripts["api:check"]!.split(" ").slice(1);
  const { stderr } = await programFailure(process.execPath, [...args, "--root", copy], { cwd: root });

  expect(stderr).toContain("+export const addedByAccident: number;");
  expect(stderr).toContain("-export const transcriptProvider");
  const problems = stderr.split("\n").filter((line) => line.startsWith("[api-report] the public API changed"));
  expect(problems).toEqual([
    "[api-report] the public API changed: review api/pulumi-cloudplatform.api.md and run npm run api:update (pulumi-cloudplatform; docs/public-api.md)",
    "[api-report] the public API changed: review api/pulumi-cloudplatform-provider.api.md and run npm run api:update (pulumi-cloudplatform/provider; docs/public-api.md)",
  ]);
}, 120_000);
