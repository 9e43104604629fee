/**
 * What the package's commands (`cloudplatform-recover`, `cloudplatform-import`) ask of a stack, through
 * the `pulumi` CLI found on PATH, in the program's directory, with the backend and passphrase the
 * environment gives it, as `pulumi` itself would run there.
 */
import { execFile } from "node:child_process";
import { CloudPlatformError } from "./errors.js";
import { redact } from "./redact.js";

/** A stack: by name (or the selected one), in its program's directory. */
export interface StackRef {
  readonly stack: string | undefined;
  readonly cwd: string;
}

/** Runs `pulumi <args> [--stack <name>] --non-interactive` in the program's directory; its stdout. */
export function pulumi(ref: StackRef, args: readonly string[], input?: string): Promise<string> {
  const stackArgs = ref.stack === undefined ? [] : ["--stack", ref.stack];
  return new Promise((resolve, reject) => {
    const child = execFile(
      "pulumi",
      [...args, ...stackArgs, "--non-interactive"],
      { cwd: ref.cwd, maxBuffer: 1024 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err === null) return resolve(stdout);
        const text = redact((stderr || err.message).trim());
        reject(
          new Error(`pulumi ${args.filter((a) => !a.startsWith("urn:")).join(" ")} failed: ${text}`, { cause: err }),
        );
      },
    );
    child.stdin?.end(input ?? "");
  });
}

/** The stack's `cloudplatform:*` config, secrets decrypted (they never leave this process). */
export async function stackConfig(ref: StackRef): Promise<Record<string, string>> {
  const parsed = JSON.parse(await pulumi(ref, ["config", "--json", "--show-secrets"])) as Record<
    string,
    { value?: unknown }
  >;
  const values: Record<string, string> = {};
  for (const [key, entry] of Object.entries(parsed)) {
    if (key.startsWith("cloudplatform:") && typeof entry.value === "string") values[key] = entry.value;
  }
  return values;
}

/** `pulumi stack export`, parsed; with `showSecrets`, its secrets in plaintext (they never leave this process). */
export async function stackExport(ref: StackRef, showSecrets = false): Promise<unknown> {
  return JSON.parse(await pulumi(ref, ["stack", "export", ...(showSecrets ? ["--show-secrets"] : [])]));
}

/** Where a command writes a line: its results on stdout, its progress on stderr. */
export type Line = (line: string) => void;

/**
 * Runs a package command as its bin does: every line it writes redacted, a failure said once on
 * stderr under the command's name, the exit code set, then `done` (closing connection pools, so
 * the process ends at once).
 */
export function runCommand(
  name: string,
  main: (args: string[], write: Line, progress: Line) => Promise<number>,
  done: () => Promise<void>,
): void {
  const write: Line = (line) => void process.stdout.write(`${redact(line)}\n`);
  const progress: Line = (line) => void process.stderr.write(`${redact(line)}\n`);
  main(process.argv.slice(2), write, progress)
    .then(
      (code) => (process.exitCode = code),
      (error: unknown) => {
        const message = CloudPlatformError.isInstance(error) || error instanceof Error ? error.message : String(error);
        process.stderr.write(`${name}: ${redact(message)}\n`);
        process.exitCode = 1;
      },
    )
    .finally(() => void done());
}
