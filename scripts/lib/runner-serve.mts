// The runner as a server of one stack's operations (`runner-cli.mts --serve`, over an IPC channel):
// the test pays Node's start, the Automation API's load, `pulumi version` and `pulumi stack select`
// once per stack instead of once per operation (about 2 of a small stack's 4.5 s, docs/development.md).
//
// A fresh process per operation is what users' programs get, so the server steps aside whenever it
// could differ from one: when a module it loaded changed on disk since (a test that rewrites a
// program's module or reinstalls its packages), or a request comes for another stack or backend
// (the process's variables are the stack's). It then answers `stale` and exits; the caller sends the
// request to a fresh process. The program's own modules are loaded again for every operation anyway.
import { readFileSync, realpathSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { isProgramModule, stackKey, type RunRequest } from "./runner.mts";

export interface ServeRequest {
  readonly id: number;
  readonly request: RunRequest;
}

export type ServeAnswer =
  | { readonly id: number; readonly answer: unknown }
  | { readonly id: number; readonly stale: string }
  | { readonly id: number; readonly failed: string };

/** Module._cache: shared by every `require`, whichever module created it. */
const moduleCache = createRequire(import.meta.url).cache;

function fingerprint(file: string): string {
  return orMissing(() => {
    const info = statSync(file);
    return `${info.mtimeMs}/${info.size}`;
  });
}

/** What `read` gives, or "missing" when the file is not there. */
function orMissing(read: () => string): string {
  try {
    return read();
  } catch {
    return "missing";
  }
}

/** Every loaded module but the program's own (loaded again each time), with its fingerprint. */
function loadedModules(request: RunRequest): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of Object.keys(moduleCache)) {
    if (!isProgramModule(request.workDir, file)) files.set(file, fingerprint(file));
  }
  // Where the program's packages come from: a reinstall may point it elsewhere.
  const packages = path.join(request.workDir, "node_modules");
  files.set(
    `${packages}/`,
    orMissing(() => realpathSync(packages)),
  );
  // The project file: its name or runtime options are read once, when the stack is opened.
  const project = path.join(request.workDir, "Pulumi.yaml");
  files.set(
    project,
    orMissing(() => readFileSync(project, "utf8")),
  );
  return files;
}

function changedModule(before: Map<string, string> | undefined, request: RunRequest): string | undefined {
  if (before === undefined) return undefined;
  const now = loadedModules(request);
  for (const [file, print] of before) if (now.get(file) !== print) return `${file} changed`;
  return undefined;
}

function send(message: ServeAnswer, then?: () => void): void {
  process.send?.(message, undefined, undefined, () => then?.());
}

export function serve(run: (request: RunRequest) => Promise<unknown>, deadlineSeconds: number): void {
  let identity: string | undefined;
  let modules: Map<string, string> | undefined;
  let busy = false;
  // The test that started this process is gone: so is its reason to run.
  process.on("disconnect", () => process.exit(0));
  process.on("message", (message: ServeRequest) => {
    const { id, request } = message;
    identity ??= stackKey(request);
    const stale = busy
      ? "an operation is running"
      : identity !== stackKey(request)
        ? "another stack or backend"
        : changedModule(modules, request);
    if (stale !== undefined) {
      // Busy: the caller sends it elsewhere; otherwise this process is of no further use.
      send({ id, stale }, busy ? undefined : () => process.exit(0));
      return;
    }
    busy = true;
    const deadline = setTimeout(() => {
      const error = `runner: ${request.op} did not finish within ${deadlineSeconds} s`;
      send({ id, answer: { op: request.op, ok: false, error } }, () => process.exit(0));
    }, deadlineSeconds * 1000);
    run(request).then(
      (answer) => {
        clearTimeout(deadline);
        modules = loadedModules(request);
        busy = false;
        send({ id, answer });
      },
      (error: unknown) => {
        clearTimeout(deadline);
        const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
        send({ id, failed: `runner failed: ${text}` }, () => process.exit(1));
      },
    );
  });
}
