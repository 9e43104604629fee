// `npm run sdk:pack [-- --out-dir <dir>]`: builds the generated Node.js SDK (sdks/nodejs,
// @pulumi-cloudplatform/sdk) with tsc and packs it, as a program installs it: compiled JavaScript
// and declarations at the package's root beside its package.json (the generated code reads its own
// version from `./package.json`, and the manifest names no `main`, so index.js must sit there).
// Default folder: bin/sdk-nodejs. Prints the tarball's path on stdout.
import { execFileSync } from "node:child_process";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

const repoRoot = path.resolve(import.meta.dirname, "..");
const sdkDir = path.join(repoRoot, "sdks", "nodejs");
const log = (message: string): void => void process.stderr.write(`[sdk-pack] ${message}\n`);

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? process.argv[at + 1] : undefined;
  if (at >= 0 && value === undefined) throw new Error(`${name} needs a value`);
  return value ?? fallback;
}

async function main(): Promise<void> {
  const outDir = path.resolve(option("--out-dir", path.join(repoRoot, "bin", "sdk-nodejs")));
  const stage = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-sdk-pack-"));
  try {
    // The SDK's own tsconfig (strict, nodenext, declarations), with this repository's TypeScript
    // and @types/node: the versions check:sdks type-checks it with.
    log("compiling sdks/nodejs");
    execFileSync(
      process.execPath,
      [path.join(repoRoot, "node_modules", "typescript", "bin", "tsc"), "-p", sdkDir, "--outDir", stage],
      { cwd: repoRoot, stdio: ["ignore", "inherit", "inherit"] },
    );
    await cp(path.join(sdkDir, "package.json"), path.join(stage, "package.json"));
    await cp(path.join(sdkDir, "README.md"), path.join(stage, "README.md"));
    // The generated folder has no LICENSE (gen-sdks.sh rewrites it): the repository's, as Apache-2.0 asks.
    await cp(path.join(repoRoot, "LICENSE"), path.join(stage, "LICENSE"));
    await mkdir(outDir, { recursive: true });
    // The manifest's only script is `build` (tsc), which npm pack does not run.
    const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", outDir], {
      cwd: stage,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    })
      .trim()
      .split("\n")
      .pop();
    const tarball = path.join(outDir, name ?? "");
    log(`wrote ${path.relative(process.cwd(), tarball)}`);
    process.stdout.write(`${tarball}\n`);
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  log(`error: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
