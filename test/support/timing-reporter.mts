// A vitest reporter that writes each test file's wall time, from the moment a worker takes it to its
// end, hooks included, to the file CLOUDPLATFORM_TIMINGS names (scripts/test.sh). vitest's JSON
// report times a file from its first test's start to its last test's end: an end-to-end file's
// beforeAll (an emulator, a packed package, `npm install`) is left out, a minute for some.
import { writeFileSync } from "node:fs";
import type { Reporter, TestModule } from "vitest/node";

/** One file's span, in ms since the epoch. */
export interface FileTiming {
  readonly file: string;
  readonly start: number;
  readonly end: number;
}

export const timingsVariable = "CLOUDPLATFORM_TIMINGS";

// Each file's CPU is written from inside its worker (test/support/file-cpu.mts, a setup file), where
// the processes it started are counted; a reporter runs in vitest's main process.
export const fileCpuVariable = "CLOUDPLATFORM_FILE_CPU";

/** One line of the file: a test file and its CPU seconds. */
export interface FileCpu {
  readonly file: string;
  readonly cpu: number;
}

/**
 * CPU seconds in a /proc/<pid>/stat line: the process's own (utime, stime) and its waited-for
 * children's (cutime, cstime), fields 14 to 17. /proc counts them in USER_HZ ticks, 100 a second
 * on Linux whatever the kernel's own rate. Fields are counted after the command's closing
 * parenthesis, since a command may hold spaces.
 */
export function cpuSecondsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is the state (field 3): utime is field 14, so fields[11].
  return [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0) / 100;
}

export default class TimingReporter implements Reporter {
  private readonly started = new Map<string, number>();
  private readonly timings: FileTiming[] = [];

  onTestModuleQueued(testModule: TestModule): void {
    this.started.set(testModule.moduleId, Date.now());
  }

  onTestModuleEnd(testModule: TestModule): void {
    const start = this.started.get(testModule.moduleId);
    if (start !== undefined) this.timings.push({ file: testModule.moduleId, start, end: Date.now() });
  }

  onTestRunEnd(): void {
    const out = process.env[timingsVariable];
    if (out) writeFileSync(out, JSON.stringify(this.timings));
  }
}
