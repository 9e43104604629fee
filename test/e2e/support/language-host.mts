// A stand-in for the Node.js language host (`pulumi-language-nodejs`), which comes with the
// vendor's Pulumi CLI but is not served by the Go module proxy, so that tests can run the `pulumi`
// commands of a workflow file exactly as written (`pulumi preview`, `pulumi up` in the program's
// folder). The engine starts it as it starts the real host (`pulumi-language-nodejs [flags]
// <engine address>`, the port read from its stdout); it serves the LanguageRuntime service with
// the Automation API's own server (@pulumi/pulumi/automation/server), loaded from the program's
// node_modules, so the program and the server share one copy of the SDK. The program's TypeScript
// entry is compiled to CommonJS with the program's own `typescript`, as the vendor host does.
// What differs from the vendor host: the program runs in this process, not in a `node` it spawns,
// and what it compiled is kept for its next start (test/support/transpiled.mts).
// Started through a one-line shell script named pulumi-language-nodejs (gitops.test.ts writes it).
import { existsSync, readFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import path from "node:path";
import type * as grpcJs from "@grpc/grpc-js";
import { transpiled } from "../../support/transpiled.mts";

/** @pulumi/pulumi's LanguageServer (automation/server.js), which its declarations leave out (@internal). */
type LanguageServerClass = new (program: () => Promise<Record<string, unknown>>) => grpcJs.UntypedServiceImplementation;

const programDir = process.cwd();
const load = createRequire(path.join(programDir, "package.json"));
const grpc = load("@grpc/grpc-js") as typeof grpcJs;
const { LanguageServer } = load("@pulumi/pulumi/automation/server") as { LanguageServer: LanguageServerClass };
const { LanguageRuntimeService } = load("@pulumi/pulumi/proto/language_grpc_pb") as {
  LanguageRuntimeService: grpcJs.ServiceDefinition;
};
const { grpcChannelOptions } = load("@pulumi/pulumi/runtime") as { grpcChannelOptions: grpcJs.ChannelOptions };

/** The entry the vendor host runs: package.json `main`, else index.ts, else index.js. */
function entryFile(): string {
  const manifest = JSON.parse(readFileSync(path.join(programDir, "package.json"), "utf8")) as { main?: string };
  if (manifest.main !== undefined) return path.resolve(programDir, manifest.main);
  const typescript = path.join(programDir, "index.ts");
  return existsSync(typescript) ? typescript : path.join(programDir, "index.js");
}

/**
 * Where compiled modules are kept: the program's node_modules, which a workflow's checkouts of one
 * repository share (gitops.test.ts links them), so only the first operation of a program loads
 * `typescript` (0.3 s of CPU, at every preview and up of a suite that is CPU-bound).
 */
const compiledDir = path.join(programDir, "node_modules", ".cache", "cloudplatform-language-host");
const compile = (file: string): string => transpiled(file, load, compiledDir);

/**
 * The program's own .ts modules (`import "./other"`), as ts-node loads them: its `.ts` handler is
 * added after Node's own, so `require` tries .js, .json and .node before .ts, as with the vendor host.
 */
type Extensions = Record<
  string,
  (m: Module & { _compile(code: string, filename: string): void }, file: string) => void
>;
const extensions = (Module as unknown as { _extensions: Extensions })._extensions;
extensions[".ts"] ??= (m, file) => m._compile(compile(file), file);

/** Compiles and runs the entry as a CommonJS module; its exports are the stack's outputs. */
function runEntry(): Record<string, unknown> {
  const file = entryFile();
  const outputText = compile(file);
  const entry = new Module(file) as Module & { _compile(code: string, filename: string): void };
  entry.filename = file;
  entry.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(programDir);
  entry._compile(outputText, file);
  return { ...(entry.exports as Record<string, unknown>) };
}

const server = new grpc.Server({ ...grpcChannelOptions });
server.addService(LanguageRuntimeService, new LanguageServer(async () => runEntry()));
server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
  if (error) {
    process.stderr.write(`pulumi-language-nodejs (stand-in): ${error.message}\n`);
    process.exit(1);
  }
  process.stdout.write(`${port}\n`);
});
