// `npm run bench [-- options]`: every row of issue 15's table, each a ratio or a count measured in
// this run against its baseline (the engine's floor, curl, s3rver), medians of several rounds in
// rotating order. Prints the table; keeps every round in bench/results/<time>.json. How to read it:
// bench/README.md. Only loopback traffic.
//
//   --row <id>      only the suite that measures this row, and only this row (repeatable)
//   --short         the short version: N = 10 only, 3 rounds, smaller cases
//   --rounds <k>    rounds per measurement (default 5; 3 with --short)
//   --n <a,b,...>   resource counts of the engine rows (default 10,100,200)
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { repoRoot } from "../scripts/lib/paths.mts";
import { engineSuite } from "./engine.mts";
import { importSuite } from "./import.mts";
import type { RowResult, Suite } from "./lib.mts";
import { objectsSuite } from "./objects.mts";
import { rateLimitSuite } from "./rate-limit.mts";
import { rotationSuite } from "./rotation.mts";
import { s3Suite } from "./s3.mts";
import { startSuite } from "./start.mts";
import { uploadSuite } from "./upload.mts";

/** In the order of the issue's table. A new suite (e.g. another host's rows) is one more entry. */
const suites: readonly Suite[] = [
  engineSuite,
  startSuite,
  uploadSuite,
  s3Suite,
  importSuite,
  objectsSuite,
  rotationSuite,
  rateLimitSuite,
];

const { values } = parseArgs({
  options: {
    row: { type: "string", multiple: true },
    short: { type: "boolean", default: false },
    rounds: { type: "string" },
    n: { type: "string" },
  },
});
const short = values.short ?? false;
const rounds = Number(values.rounds ?? (short ? 3 : 5));
const sizes = (values.n ?? (short ? "10" : "10,100,200")).split(",").map(Number);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds takes a positive integer");
if (sizes.some((n) => !Number.isInteger(n) || n < 2 || n % 2 !== 0)) throw new Error("--n takes even numbers ≥ 2");
const wanted = new Set(values.row ?? []);
const known = new Set(suites.flatMap((s) => s.rowIds));
for (const id of wanted) {
  if (!known.has(id)) throw new Error(`no row "${id}"; rows: ${[...known].join(", ")}`);
}
const chosen = suites.filter((s) => wanted.size === 0 || s.rowIds.some((id) => wanted.has(id)));

const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);
const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");
// Every suite runs the built code (bin/, emulator/dist/), and the engine's programs its packed tarball.
log("building");
execFileSync("npm", ["run", "--silent", "build"], { cwd: repoRoot, stdio: ["ignore", "ignore", "inherit"] });
const workDir = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-bench-"));
const rows: RowResult[] = [];
const raw: Record<string, unknown> = {};
const loads: Record<string, { before: string; after: string }> = {};
const started = new Date();
try {
  for (const suite of chosen) {
    const before = load();
    log(`suite ${suite.name} (load average ${before})`);
    const result = await suite.run({ rounds, short, sizes, rows: wanted, workDir, log });
    loads[suite.name] = { before, after: load() };
    raw[suite.name] = result.raw;
    rows.push(...result.rows.filter((r) => wanted.size === 0 || wanted.has(r.id)));
  }
} finally {
  await rm(workDir, { recursive: true, force: true });
}

const cell = (text: string) => text.replace(/\|/g, "\\|");
const lines = [
  `Medians of ${rounds} rounds, rotating order; ${os.cpus().length} CPUs, Node ${process.version}.`,
  `Load average (1, 5, 15 min) before/after each suite: ${Object.entries(loads)
    .map(([name, l]) => `${name} ${l.before} / ${l.after}`)
    .join("; ")}`,
  "",
  "| row | what | N | now | goal | met | medians |",
  "| --- | --- | --- | --- | --- | --- | --- |",
  ...rows.map((r) =>
    [
      r.id,
      r.what,
      r.n === undefined ? "" : String(r.n),
      r.now,
      r.goal,
      r.met === undefined ? "" : r.met ? "yes" : "**no**",
      r.detail,
    ]
      .map(cell)
      .join(" | ")
      .replace(/^/, "| ")
      .concat(" |"),
  ),
];
console.log(lines.join("\n"));

const resultsDir = path.join(repoRoot, "bench", "results");
await mkdir(resultsDir, { recursive: true });
const file = path.join(resultsDir, `${started.toISOString().replace(/[:.]/g, "-")}.json`);
await writeFile(
  file,
  JSON.stringify({ started, rounds, short, sizes, node: process.version, loads, rows, raw }, null, 2) + "\n",
);
log(`every round: ${path.relative(repoRoot, file)}`);
