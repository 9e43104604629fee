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
