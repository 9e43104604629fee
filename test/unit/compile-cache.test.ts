/**
 * Provider processes start for every `pulumi` operation: both entries turn on Node's compile cache
 * before loading the rest (provider/compile-cache.ts), and NODE_DISABLE_COMPILE_CACHE=1 still turns
 * it off. Runs the built entries (bin/) in child processes, as the hosts do.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPackage, runProgram } from "../support/tools.mts";

const root = resolve(__dirname, "../..");
let cacheRoot: string;

/** This process's environment with the cache's switches as given, temporary files in `cacheRoot`. */
function envWith(disable: boolean): NodeJS.ProcessEnv {
  const { NODE_DISABLE_COMPILE_CACHE: _, NODE_COMPILE_CACHE: __, ...rest } = process.env;
  return { ...rest, TMPDIR: cacheRoot, ...(disable ? { NODE_DISABLE_COMPILE_CACHE: "1" } : {}) };
}

beforeAll(async () => {
  await buildPackage();
  cacheRoot = await mkdtemp(join(tmpdir(), "compile-cache-"));
}, 600_000);

afterAll(async () => {
  if (cacheRoot) await rm(cacheRoot, { recursive: true, force: true });
});

/** The compile cache folder a process has after requiring `entry`, or "none". */
async function cacheDirAfter(entry: string, env: NodeJS.ProcessEnv): Promise<string> {
  const script = `require(${JSON.stringify(entry)}); console.log(require("node:module").getCompileCacheDir() ?? "none");`;
  const { stdout } = await runProgram(process.execPath, ["-e", script], { cwd: root, env });
  return stdout.trim().split("\n").pop() ?? "";
}

describe("the compile cache of provider processes", () => {
  const entry = join(root, "bin/provider/index.js");

  it("is on once the dynamic provider's entry is loaded, in the system's temporary folder", async () => {
    expect(await cacheDirAfter(entry, envWith(false))).toContain(join(cacheRoot, "node-compile-cache"));
  });

  it("stays off under NODE_DISABLE_COMPILE_CACHE=1", async () => {
    expect(await cacheDirAfter(entry, envWith(true))).toBe("none");
  });

  it("is on before the executable provider loads its main module", async () => {
    const launcher = join(root, "bin/provider/plugin/launcher.js");
    const script = [
      `const Module = require("node:module");`,
      `const load = Module._load;`,
      `Module._load = function (request, ...rest) {`,
      `  if (/main\\.js$/.test(request)) { console.log(Module.getCompileCacheDir() ?? "none"); process.exit(0); }`,
      `  return load.call(this, request, ...rest);`,
      `};`,
      `process.argv[1] = ${JSON.stringify(launcher)};`,
      `require.main = undefined;`,
      `Module.runMain(${JSON.stringify(launcher)});`,
    ].join("\n");
    const { stdout } = await runProgram(process.execPath, ["-e", script], { cwd: root, env: envWith(false) });
    expect(stdout.trim().split("\n").pop()).toContain(join(cacheRoot, "node-compile-cache"));
  });
});
