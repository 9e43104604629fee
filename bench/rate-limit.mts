// Suite "rate-limit" (issue 39): the engine deploying against the emulator's rate limit
// (`--rate-limit 10`: a token bucket of 10 requests per second, bursts of 10, per API key; 429 with
// Retry-After over it), each provider process pacing itself through its gate
// (provider/request/pace.ts) without being told the limit:
//   rate-limit-one     one stack of 1,000 buckets and 1,000 credentials (60 + 60 with --short);
//   rate-limit-shared  three stacks of 300 + 300 at once, one API key, one limit (30 + 30 with --short);
//   rate-limit-shared-no-burst  the same under a limit with no burst (a token bucket of 1): any two
//                      calls closer than 100 ms, whichever stacks sent them, and the second is refused.
//   rate-limit-shared-announced  the same, with the limit announced in every answer's headers
//                      (`RateLimit-Policy`, the emulator's `announce`; provider/request/rate-headers.ts).
//   rate-limit-shared-503  the no-burst case refused with 503 and no Retry-After, as nginx's
//                      `limit_req` refuses unless told otherwise (the emulator's `status`, `retryAfter`).
// The baseline is the ideal, measured in the same run: the requests the platform served divided by
// the limit (a client that knew the limit and never waited for anything else). The time is the
// engine's operation alone (the slowest of the three stacks); the refusals are the emulator's own
// count at its front. Beside them, the same first `up` with no limit: what the engine itself takes
// on this machine, which no pacing can beat. One run of each (a 1,000-bucket round takes minutes).
import path from "node:path";
import { performance } from "node:perf_hooks";
import { startEmulatorProcess, type RunningEmulator } from "../scripts/lib/emulator-process.mts";
import { prepareExample } from "../scripts/lib/example-workspace.mts";
import { pulumiBinDir } from "../scripts/lib/paths.mts";
import { Platform } from "../test/support/platform.mts";
import { connection, runStep, soak } from "./engine.mts";
import type { RowResult, Suite } from "./lib.mts";

const limit = 10;
/**
 * `BENCH_SEPARATE_GATES=1`: each provider process keeps its own gate (`CLOUDPLATFORM_SHARED_GATE=0`),
 * as before processes on one machine shared theirs: the comparison for the shared gate.
 */
const separateGates = process.env["BENCH_SEPARATE_GATES"] === "1";

interface Case {
  readonly id:
    | "rate-limit-one"
    | "rate-limit-shared"
    | "rate-limit-shared-no-burst"
    | "rate-limit-shared-announced"
    | "rate-limit-shared-503";
  readonly stacks: number;
  readonly buckets: number;
  /** The token bucket's size: the calls the platform takes at once after a pause. */
  readonly burst: number;
  /** Whether the platform states its limit in its answers' headers. */
  readonly announce?: boolean;
  /** A refusal answered 503 with no `Retry-After`, instead of 429 with one. */
  readonly busy?: boolean;
}

interface Measured {
  readonly id: Case["id"];
  readonly limited: boolean;
  readonly stacks: number;
  readonly buckets: number;
  /** The engine's operation alone, per stack. */
  readonly seconds: readonly number[];
  /** From the first `up` started to the last one ended. */
  readonly wallSeconds: number;
  readonly allowed: number;
  readonly refused: number;
  readonly created: number;
}

/** The first `up` of `c.stacks` stacks at once, one key, on an emptied platform. */
async function deploy(
  c: Case,
  limited: boolean,
  workDir: string,
  scratch: string,
  emulator: RunningEmulator,
): Promise<Measured> {
  const platform = new Platform(emulator);
  await platform.reset();
  await platform.setRateLimit(
    limited
      ? {
          requestsPerSecond: limit,
          burst: c.burst,
          announce: c.announce === true,
          ...(c.busy === true ? { status: 503, retryAfter: false } : {}),
        }
      : { requestsPerSecond: 0 },
  );
  const binDir = pulumiBinDir();
  const started = performance.now();
  const results = await Promise.all(
    Array.from({ length: c.stacks }, (_, i) => {
      const stackName = `${c.id}-${limited ? "limited" : "free"}-${i}`;
      return runStep(
        {
          op: "up",
          workDir,
          stateDir: path.join(scratch, "rate-limit", stackName),
          stackName,
          config: { ...connection(emulator), ...soak(c.buckets, 0, `rl${i}-${limited ? "l" : "f"}`) },
        },
        binDir,
        separateGates ? { CLOUDPLATFORM_SHARED_GATE: "0" } : {},
      );
    }),
  );
  const wallSeconds = (performance.now() - started) / 1000;
  const counts = await platform.rateLimit();
  return {
    id: c.id,
    limited,
    stacks: c.stacks,
    buckets: c.buckets,
    seconds: results.map((r) => r.seconds ?? Number.NaN),
    wallSeconds,
    allowed: counts.allowed,
    refused: counts.refused,
    created: results.reduce((sum, r) => sum + (r.changes?.["create"] ?? 0), 0),
  };
}

function rowOf(c: Case, limited: Measured, free: Measured): RowResult {
  // With the limit off the emulator counts nothing refused, and every request as allowed.
  const ideal = limited.allowed / limit;
  const time = Math.max(...limited.seconds);
  const timeRatio = time / ideal;
  const refusedShare = limited.refused / Math.max(1, limited.allowed);
  const allUp = limited.created === c.stacks * (2 * c.buckets + 1);
  const what =
    c.stacks === 1
      ? `one stack of ${c.buckets} buckets + ${c.buckets} credentials under ${limit} requests/s`
      : `${c.stacks} stacks of ${c.buckets} + ${c.buckets} at once, one key, one limit of ${limit} requests/s` +
        (c.burst === 1 ? " with no burst" : "") +
        (c.announce === true ? ", announced in its answers" : "") +
        (c.busy === true ? ", refused with 503 and no Retry-After" : "") +
        (separateGates ? " (a gate per process)" : "");
  return {
    id: c.id,
    what,
    n: c.stacks * 2 * c.buckets,
    now: `${timeRatio.toFixed(2)}× ideal, ${(refusedShare * 100).toFixed(1)} % refused`,
    goal: "first up succeeds; ≤ 1.15× ideal; refused ≤ 10 %",
    met: allUp && timeRatio <= 1.15 && refusedShare <= 0.1,
    detail:
      `ideal ${ideal.toFixed(1)} s (${limited.allowed} requests served); up ${time.toFixed(1)} s ` +
      `(per stack ${limited.seconds.map((s) => s.toFixed(1)).join(", ")}; wall ${limited.wallSeconds.toFixed(1)} s); ` +
      `${limited.refused} refused; ${limited.created} created; the same up with no limit ` +
      `${Math.max(...free.seconds).toFixed(1)} s`,
  };
}

export const rateLimitSuite: Suite = {
  name: "rate-limit",
  rowIds: [
    "rate-limit-one",
    "rate-limit-shared",
    "rate-limit-shared-no-burst",
    "rate-limit-shared-announced",
    "rate-limit-shared-503",
  ],
  async run(options) {
    const all: readonly Case[] = options.short
      ? [
          { id: "rate-limit-one", stacks: 1, buckets: 60, burst: limit },
          { id: "rate-limit-shared", stacks: 3, buckets: 30, burst: limit },
          { id: "rate-limit-shared-no-burst", stacks: 3, buckets: 30, burst: 1 },
          { id: "rate-limit-shared-announced", stacks: 3, buckets: 30, burst: 1, announce: true },
          { id: "rate-limit-shared-503", stacks: 3, buckets: 30, burst: 1, busy: true },
        ]
      : [
          { id: "rate-limit-one", stacks: 1, buckets: 1000, burst: limit },
          { id: "rate-limit-shared", stacks: 3, buckets: 300, burst: limit },
          { id: "rate-limit-shared-no-burst", stacks: 3, buckets: 300, burst: 1 },
          { id: "rate-limit-shared-announced", stacks: 3, buckets: 300, burst: 1, announce: true },
          { id: "rate-limit-shared-503", stacks: 3, buckets: 300, burst: 1, busy: true },
        ];
    // Each full-size case takes minutes: run only the rows asked for.
    const cases = all.filter((c) => options.rows.size === 0 || options.rows.has(c.id));
    const { workDir } = await prepareExample("soak", options.workDir);
    const emulator = await startEmulatorProcess(path.join(options.workDir, "rate-limit-emulator.log"), ["--quiet"]);
    const raw: Measured[] = [];
    const rows: RowResult[] = [];
    try {
      for (const c of cases) {
        const free = await deploy(c, false, workDir, options.workDir, emulator);
        const limited = await deploy(c, true, workDir, options.workDir, emulator);
        options.log(
          `${c.id}: ${limited.allowed} served, ${limited.refused} refused, up ${Math.max(...limited.seconds).toFixed(1)} s`,
        );
        raw.push(free, limited);
        rows.push(rowOf(c, limited, free));
      }
    } finally {
      await emulator.stop();
    }
    return { rows, raw };
  },
};
