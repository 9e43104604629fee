// Where the project's scripts find the repository, their caches and the toolchain.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Packed tarballs and installed example dependencies, reused across runs (gitignored). */
export const testCacheDir = path.join(repoRoot, ".pulumi-test");

export const examplesDir = path.join(repoRoot, "examples");

/**
 * The folder holding `pulumi` and the dynamic-provider plugin. test.sh and demo.sh export it in
 * CLOUDPLATFORM_PULUMI_BIN_DIR; otherwise ensure-pulumi.sh finds (or builds) it.
 */
export function pulumiBinDir(): string {
  const fromEnv = process.env.CLOUDPLATFORM_PULUMI_BIN_DIR;
  if (fromEnv && existsSync(path.join(fromEnv, "pulumi"))) return fromEnv;
  const out = execFileSync("bash", [path.join(repoRoot, "scripts", "ensure-pulumi.sh")], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const dir = out.trim().split("\n").pop() ?? "";
  process.env.CLOUDPLATFORM_PULUMI_BIN_DIR = dir;
  return dir;
}
