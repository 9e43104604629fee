// Starts the emulator's CLI as a child process and waits for its ready line.
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { repoRoot } from "./paths.mts";

export interface EmulatorEndpoints {
  readonly baseUrl: string;
  readonly s3Url: string;
  readonly apiUrl: string;
  readonly apiKey: string;
  readonly token: string;
}

export interface RunningEmulator extends EmulatorEndpoints {
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the emulator on free ports; its log (stderr and later stdout) goes to `logFile`. */
export async function startEmulatorProcess(
  logFile: string,
  extraArgs: readonly string[] = [],
): Promise<RunningEmulator> {
  const cli = path.join(repoRoot, "emulator", "bin", "cloudplatform-emulator.js");
  const log = openSync(logFile, "a");
  const child = spawn(process.execPath, [cli, "--port", "0", ...extraArgs], { stdio: ["ignore", "pipe", log] });
  closeSync(log);
  const lines = readline.createInterface({ input: child.stdout! });
  const endpoints = await new Promise<EmulatorEndpoints>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the emulator printed no ready line within 30 s")), 30_000);
    child.once("exit", (code) =>
      reject(new Error(`the emulator exited with code ${code} before it was ready; see ${logFile}`)),
    );
    lines.once("line", (line) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(line) as EmulatorEndpoints);
      } catch {
        reject(new Error(`the emulator's first line is not its JSON ready line: ${line.slice(0, 200)}`));
      }
    });
  });
  // Later stdout is drained rather than left to fill the pipe.
  lines.on("line", () => undefined);
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });
  return { ...endpoints, process: child, stop };
}
