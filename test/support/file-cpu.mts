// A setup file of every vitest project: when scripts/test.sh names a file in CLOUDPLATFORM_FILE_CPU,
// each test file appends there the CPU its worker used while the file ran, with the processes the
// worker started and waited for (npm, the Pulumi CLI, the runner, the providers, Go): what the file
// costs a CPU-bound run on two cores, which its wall time at three files at once does not say.
// A process still running when the file's last hook ends is not counted: a lower bound.
import { appendFileSync, readFileSync } from "node:fs";
import { afterAll } from "vitest";
import { cpuSecondsOfStat, fileCpuVariable, type FileCpu } from "./timing-reporter.mts";

/** This process's CPU from /proc, or undefined where there is none (macOS, Windows): no figure then. */
function procCpu(): number | undefined {
  try {
    return cpuSecondsOfStat(readFileSync("/proc/self/stat", "utf8"));
  } catch {
    return undefined;
  }
}

const out = process.env[fileCpuVariable];
// A worker may be reused for another file: count from this file's start.
const before = out ? procCpu() : undefined;
if (out && before !== undefined) {
  const selfCpu = () => procCpu() ?? before;
  // Registered before the file's own hooks, so it runs after them (afterAll hooks run in reverse).
  // vitest reads the first parameter's pattern for fixtures: it must be a destructuring one.
  // eslint-disable-next-line no-empty-pattern
  afterAll(({}, suite) => {
    const file = "filepath" in suite ? suite.filepath : suite.file.filepath;
    const line: FileCpu = { file, cpu: Math.round((selfCpu() - before) * 100) / 100 };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  });
}
