// The check every shipped tarball passes (scripts/lib/tarball-check.mts, run on the real tarballs
// by scripts/check-package.sh): it finds a missing or altered LICENSE and an install-time script,
// in npm's layout (package/…) and the plugin's (files at the root).
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, "..", "..");
const licenseFile = path.join(repoRoot, "LICENSE");
const load = () => import("../../scripts/lib/tarball-check.mts");

let scratch = "";
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-tarball-check-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A tarball of `files` under `prefix` (npm's `package/`, or "" as the plugin's). */
async function tarball(name: string, prefix: string, files: Record<string, string>): Promise<string> {
  const stage = path.join(scratch, name);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(stage, prefix, file)), { recursive: true });
    await writeFile(path.join(stage, prefix, file), text);
  }
  const out = path.join(scratch, `${name}.tgz`);
  await run("tar", ["-czf", out, "-C", stage, prefix === "" ? "." : prefix.replace(/\/$/, "")]);
  return out;
}

describe("checkTarball", () => {
  it("accepts the repository's LICENSE and a manifest without install scripts, in both layouts", async () => {
    const { checkTarball } = await load();
    const license = await readFile(licenseFile, "utf8");
    const manifest = JSON.stringify({ name: "x", scripts: { build: "tsc", prepack: "npm run build" } });
    const npm = await tarball("npm-ok", "package/", { LICENSE: license, "package.json": manifest });
    const plugin = await tarball("plugin-ok", "", { LICENSE: license, "package.json": manifest });
    expect(await checkTarball(npm, licenseFile)).toEqual([]);
    expect(await checkTarball(plugin, licenseFile)).toEqual([]);
  });

  it("names a missing LICENSE, an altered one and each install-time script", async () => {
    const { checkTarball } = await load();
    const scripts = { prepare: "npm run build", postinstall: "node x.js" };
    const missing = await tarball("missing", "package/", { "package.json": JSON.stringify({ scripts }) });
    expect(await checkTarball(missing, licenseFile)).toEqual([
      "missing.tgz: no package/LICENSE at the package's root",
      "missing.tgz: package.json has install-time scripts: postinstall, prepare",
    ]);
    const altered = await tarball("altered", "", { LICENSE: "MIT", "package.json": "{}" });
    expect(await checkTarball(altered, licenseFile)).toEqual([
      "altered.tgz: LICENSE differs from the repository's LICENSE",
    ]);
  });
});

describe("the repository's manifests and license files", () => {
  it("declare no install-time script: the built package needs none, and npm 11 holds them back", async () => {
    const { installScripts } = await load();
    for (const manifest of ["package.json", "emulator/package.json", "sdks/nodejs/package.json"]) {
      const { scripts = {} } = JSON.parse(await readFile(path.join(repoRoot, manifest), "utf8")) as {
        scripts?: Record<string, string>;
      };
      expect(
        installScripts.filter((name) => name in scripts),
        manifest,
      ).toEqual([]);
    }
  });

  it("keeps the emulator's LICENSE equal to the root's, which is Apache-2.0 as every package.json says", async () => {
    const license = await readFile(licenseFile, "utf8");
    expect(license).toContain("Apache License\n                           Version 2.0, January 2004");
    expect(await readFile(path.join(repoRoot, "emulator", "LICENSE"), "utf8")).toBe(license);
    for (const manifest of ["package.json", "emulator/package.json", "sdks/nodejs/package.json"]) {
      const pkg = JSON.parse(await readFile(path.join(repoRoot, manifest), "utf8")) as { license: string };
      expect(pkg.license, manifest).toBe("Apache-2.0");
    }
  });
});
