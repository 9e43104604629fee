// The front page as a newcomer follows it: README.md's program and its commands, run as written in a
// folder laid out as `pulumi new typescript` lays it out, outside this repository, with the package
// installed by npm from its packed tarball and the Pulumi CLI on PATH. The only changes to the text
// are the reader's values (the emulator's addresses and key for the example's) and `--yes` for the
// prompt a reader answers (support/readme.ts). Then docs/installation-configuration.md's settings,
// a preview with no change, the credential used over S3, and destroy.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, type Emulator } from "../support/emulator.js";
import { recordUse, sectionBlocks } from "../support/doc-blocks.mts";
import { emulatorState } from "../support/platform.mts";
import { languageHostFolder, npmEnv, npmPack, plainPath, pulumiNewTypescript } from "./support/packages.js";
import { pulumiBinDir, repoRoot } from "./support/plugin-cli.js";
import { readerScript, readmeBlocks, type CodeBlock } from "./support/readme.js";
import { roundTrip } from "./support/s3.js";

const run = promisify(execFile);

describe("README.md: use it in a Pulumi program, as written", () => {
  let scratch: string;
  let dir: string;
  let emulator: Emulator;
  let env: Record<string, string>;
  let program: CodeBlock;
  let steps: CodeBlock;

  const shell = async (script: string) =>
    run("bash", ["-c", script], { cwd: dir, env, maxBuffer: 64 << 20, timeout: 600_000 });
  const pulumi = async (...args: string[]) => (await shell(`pulumi ${args.join(" ")} --non-interactive`)).stdout;

  beforeAll(async () => {
    scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-readme-"));
    const [tarball, binDir, hostDir] = await Promise.all([
      npmPack(".", path.join(scratch, "packed")),
      pulumiBinDir(),
      languageHostFolder(scratch),
      mkdir(path.join(scratch, "backend")),
    ]);
    emulator = await launchEmulator();
    env = {
      ...npmEnv(),
      npm_config_prefer_offline: "true",
      PATH: plainPath([hostDir, binDir]),
      PULUMI_HOME: path.join(scratch, "pulumi-home"),
      PULUMI_BACKEND_URL: `file://${path.join(scratch, "backend")}`,
      PULUMI_CONFIG_PASSPHRASE: "readme",
      PULUMI_SKIP_UPDATE_CHECK: "true",
      CLOUDPLATFORM_README_API_KEY: emulator.apiKey,
    };
    [program, steps] = (await readmeBlocks("Use it in a Pulumi program", "README.md", 2)) as [CodeBlock, CodeBlock];
    expect([program.language, steps.language]).toEqual(["ts", "sh"]);
    dir = path.join(scratch, "media");
    await pulumiNewTypescript(dir, "media", { env });
    await writeFile(path.join(dir, "index.ts"), program.text);
    // The package is not on the npm registry yet: the reader installs the release's tarball.
    const npmInstall = "npm install pulumi-cloudplatform @pulumi/pulumi";
    expect(steps.text.split("\n")).toContain(npmInstall);
    const values = { repository: repoRoot, baseUrl: emulator.baseUrl, s3Url: emulator.s3Url };
    await shell(
      readerScript(steps, values, {
        [npmInstall]: `npm install ${tarball} @pulumi/pulumi`,
        "pulumi up": "pulumi up --yes",
      }),
    );
  }, 900_000);

  afterAll(async () => {
    await emulator?.close();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("`pulumi up` made the bucket and the credential, and the outputs reach the bucket over S3", async () => {
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 1, credentials: 1 });
    const { s3 } = JSON.parse(await pulumi("stack", "output", "--json", "--show-secrets")) as {
      s3: { endpoint: string; bucket: string; accessKeyId: string; secretAccessKey: string };
    };
    expect(s3.accessKeyId).toMatch(/^CPAK/);
    expect(await roundTrip({ ...s3, region: "us-east-1" })).toBe("ok");
    const masked = JSON.parse(await pulumi("stack", "output", "--json")) as { s3: { secretAccessKey: string } };
    expect(masked.s3.secretAccessKey).toBe("[secret]");
  });

  it("docs/installation-configuration.md's settings, then a preview: no change", async () => {
    // Only the settings' block is run here (the section's rate-limit block is marked on the page).
    const settings = sectionBlocks("docs/installation-configuration.md", "Configuration", 2)[0]!;
    recordUse([settings], "ran", "test/e2e/readme.test.ts");
    await shell(readerScript(settings, { repository: repoRoot, baseUrl: emulator.baseUrl, s3Url: emulator.s3Url }));
    await pulumi("preview", "--expect-no-changes");
  });

  it("keeps the API key and the S3 secret out of the state in clear", async () => {
    const exported = await pulumi("stack", "export");
    const { s3 } = JSON.parse(await pulumi("stack", "output", "--json", "--show-secrets")) as {
      s3: { secretAccessKey: string };
    };
    expect(exported).not.toContain(emulator.apiKey);
    expect(exported).not.toContain(s3.secretAccessKey);
    expect(await readFile(path.join(dir, "Pulumi.dev.yaml"), "utf8")).not.toContain(emulator.apiKey);
  });

  it("`pulumi destroy` removes both", async () => {
    await pulumi("destroy", "--yes");
    expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, credentials: 0 });
  });
});
