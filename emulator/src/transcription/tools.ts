import { execFile } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { delimiter, join } from "node:path";

/** True when an executable of this name is on PATH (checked once per name). */
const found = new Map<string, Promise<boolean>>();
export function hasTool(name: string): Promise<boolean> {
  let result = found.get(name);
  if (!result) {
    result = (async () => {
      for (const dir of (process.env.PATH ?? "").split(delimiter)) {
        if (dir === "") continue;
        try {
          await access(join(dir, name), constants.X_OK);
          return true;
        } catch {
          continue;
        }
      }
      return false;
    })();
    found.set(name, result);
  }
  return result;
}

interface RunOptions {
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  readonly env?: NodeJS.ProcessEnv;
}

/** Runs a program without a shell; resolves with stdout, rejects with stderr's tail on failure. */
export function run(file: string, args: readonly string[], options: RunOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        timeout: options.timeoutMs,
        signal: options.signal,
        maxBuffer: 64 * 1024 * 1024,
        env: options.env ?? process.env,
      },
      (err, stdout, stderr) => {
        if (err) {
          const tail = String(stderr).trim().split("\n").slice(-2).join(" ").slice(0, 300);
          const reason = err.killed ? `timed out after ${options.timeoutMs} ms` : tail || err.message;
          reject(new Error(`${file} failed: ${reason}`, { cause: err }));
          return;
        }
        resolve(String(stdout));
      },
    );
  });
}
