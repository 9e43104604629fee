// What every tarball this repository ships must carry, whoever packs it (npm pack, plugin:pack,
// sdk:pack): the Apache-2.0 text its package.json declares, which the license requires to travel
// with each copy (section 4(a)), and a manifest without install-time scripts, which npm 11 holds
// back until a user approves them and which a built package never needs.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Scripts npm runs when the package is installed; none may ship. */
export const installScripts = ["preinstall", "install", "postinstall", "prepare"] as const;

/** The problems of one tarball's listing and files; empty when it is fine. */
export function tarballProblems(
  listing: readonly string[],
  files: { license: string | undefined; manifest: string | undefined },
  expectedLicense: string,
): string[] {
  const problems: string[] = [];
  const root = listing.some((entry) => entry.startsWith("package/")) ? "package/" : "";
  if (files.license === undefined) problems.push(`no ${root}LICENSE at the package's root`);
  else if (files.license !== expectedLicense) problems.push(`${root}LICENSE differs from the repository's LICENSE`);
  if (files.manifest === undefined) return [...problems, `no ${root}package.json`];
  const scripts = (JSON.parse(files.manifest) as { scripts?: Record<string, string> }).scripts ?? {};
  const shipped = installScripts.filter((name) => name in scripts);
  if (shipped.length > 0) problems.push(`package.json has install-time scripts: ${shipped.join(", ")}`);
  return problems;
}

async function member(tarball: string, listing: readonly string[], name: string): Promise<string | undefined> {
  const entry = listing.find((item) => item === name || item === `package/${name}` || item === `./${name}`);
  if (entry === undefined) return undefined;
  const { stdout } = await run("tar", ["-xzOf", tarball, entry], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/** Reads `tarball` and returns its problems against `licenseFile` (the repository's LICENSE). */
export async function checkTarball(tarball: string, licenseFile: string): Promise<string[]> {
  const { stdout } = await run("tar", ["-tzf", tarball], { maxBuffer: 256 * 1024 * 1024 });
  const listing = stdout.split("\n").filter((line) => line !== "");
  const files = {
    license: await member(tarball, listing, "LICENSE"),
    manifest: await member(tarball, listing, "package.json"),
  };
  return tarballProblems(listing, files, await readFile(licenseFile, "utf8")).map(
    (problem) => `${path.basename(tarball)}: ${problem}`,
  );
}
