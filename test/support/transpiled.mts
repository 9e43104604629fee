// A TypeScript module as CommonJS, as the Node.js language host's stand-in
// (test/e2e/support/language-host.mts) compiles a program's files, kept on disk by what determines
// the output: the stand-in starts once per `pulumi preview` or `up`, and loading `typescript` to
// compile the same file again costs about 0.3 s of CPU each time, on a suite that is CPU-bound.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type * as ts from "typescript";

/** The options given to `typescript`, by name: part of what a kept output is kept for. */
const options = { module: "CommonJS", target: "ES2022", esModuleInterop: true } as const;

/**
 * `file` compiled to CommonJS with the `typescript` that `load` (the program's require) finds, or
 * the output kept in `keptDir` for the same text, file name, options and compiler version.
 */
export function transpiled(file: string, load: NodeJS.Require, keptDir: string): string {
  const source = readFileSync(file, "utf8");
  const fileName = path.basename(file);
  const compiler = load("typescript/package.json") as { version: string };
  const digest = createHash("sha256")
    .update(JSON.stringify([compiler.version, options, fileName, source]))
    .digest("hex");
  const kept = path.join(keptDir, `${digest}.js`);
  if (existsSync(kept)) return readFileSync(kept, "utf8");
  const typescript = load("typescript") as typeof ts;
  const { outputText } = typescript.transpileModule(source, {
    fileName,
    compilerOptions: {
      module: typescript.ModuleKind[options.module],
      target: typescript.ScriptTarget[options.target],
      esModuleInterop: options.esModuleInterop,
    },
  });
  // Written aside and renamed: a host compiling the same file at once never reads half of it.
  // Keeping it is a saving only: a folder that cannot be written to changes nothing else.
  try {
    mkdirSync(keptDir, { recursive: true });
    const partial = `${kept}.${process.pid}`;
    writeFileSync(partial, outputText);
    renameSync(partial, kept);
  } catch {
    // compiled again next time
  }
  return outputText;
}
