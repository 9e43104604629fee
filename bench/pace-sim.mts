// `npm run bench:pace [-- <seeds>]`: the pacing gate (provider/request/pace.ts) on a virtual
// clock, to compare its behaviour over many shapes of platform in seconds instead of the real
// rate-limit rows' minutes each: 1 to 8 stacks sharing one key, a limit of 5 to 50 requests a
// second with small and large bursts, `Retry-After` in whole seconds or none, an engine that sends
// 7 requests a second per stack (this 2-core machine) or 40 (a fast one). Each stack is its own
// gate, as each is its own provider process; its requests are retried as provider/request/
// retrying.ts does (a refusal with `Retry-After` waits at the gate, one without backs off on its
// own, at most `defaultRetryPolicy.maxRefusedAttempts` attempts within its `maxTotalMs`). Counted
// as the real rows count them: the refusals at the platform's front against the requests served,
// the slowest stack's time against the ideal (requests served ÷ limit, or the engine's own time
// where that is longer), and any request that ran out of attempts or time (a failed `up`). Seeds:
// 3 unless given. `--shared`: the stacks' calls pass one gate, as provider processes on one machine
// share it. `--faults`: no limit, but the soak's faults instead (a 503 for one request in ten, a 429
// for one in twenty, whatever the rate), against the engine's own time. `--jitter=<ms>`: requests
// reach the front up to that much later than they left the gate. Besides token buckets, fronts that
// count whole seconds (`10/window`), refusing until the next with `Retry-After` to it, and token
// buckets that refuse with 503 and no `Retry-After` (`503, no`), as nginx's `limit_req` does.
//
// A model, not a measurement: the engine is a pool of workers with a fixed think time, the
// platform answers in 10 ms. The real rows (`npm run bench -- --row rate-limit-shared`) are the
// measure; this shows which shapes to run them on and how a change to the gate moves the figures.
import { Pace, type Signal } from "../bin/provider/request/pace.js";
import { backoffDelay, defaultRetryPolicy } from "../bin/provider/retry.js";
import type { Clock } from "../bin/provider/vocabulary.js";

/** Time that moves only when every pending callback has run: the next timer's instant. */
class VirtualClock implements Clock {
  private t = 0;
  private seq = 0;
  private timers: { at: number; seq: number; wake: () => void }[] = [];

  now(): number {
    return this.t;
  }

  sleep(ms: number): Promise<void> {
    return new Promise((wake) => this.timers.push({ at: this.t + Math.max(0, ms), seq: this.seq++, wake }));
  }

  /** Runs until `work` settles. */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    void work.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      // One macrotask turn: every microtask queued so far (and those they queue) has run.
      await new Promise((resolve) => setImmediate(resolve));
      if (settled) return work;
      this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const next = this.timers.shift();
      if (next === undefined) throw new Error("simulation stalled: nothing pending, work not done");
      this.t = next.at;
      next.wake();
    }
  }
}

/**
 * The platform's front for the one key all stacks use: a token bucket, as emulator/src/rate-limit.ts,
 * or (`window`) at most `rate` requests in each whole second, refused until the next one begins.
 */
class Front {
  private tokens: number;
  private at = 0;
  served = 0;
  refused = 0;
  private readonly clock: Clock;
  private readonly rate: number;
  private readonly burst: number;
  private readonly retryAfter: boolean;
  private readonly window: boolean;
  private windowAt = 0;
  private inWindow = 0;

  constructor(clock: Clock, rate: number, burst: number, retryAfter: boolean, window = false) {
    this.clock = clock;
    this.rate = rate;
    this.burst = burst;
    this.retryAfter = retryAfter;
    this.window = window;
    this.tokens = burst;
  }

  /** Undefined when served, else the refusal's `Retry-After` in ms (null: no header). */
  admit(): number | null | undefined {
    const now = this.clock.now();
    if (this.window) {
      const at = Math.floor(now / 1000) * 1000;
      if (at !== this.windowAt) [this.windowAt, this.inWindow] = [at, 0];
      if (this.inWindow < this.rate) {
        this.inWindow += 1;
        this.served += 1;
        return undefined;
      }
      this.refused += 1;
      return this.retryAfter ? Math.ceil((at + 1000 - now) / 1000) * 1000 : null;
    }
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate);
    this.at = now;
    if (this.tokens >= 1) {
      this.tokens -= 1;
      this.served += 1;
      return undefined;
    }
    this.refused += 1;
    return this.retryAfter ? Math.max(1, Math.ceil((1 - this.tokens) / this.rate)) * 1000 : null;
  }
}

interface Shape {
  readonly stacks: number;
  /** Requests per stack (the row's 300 buckets + 300 credentials: 600). */
  readonly requests: number;
  readonly rate: number;
  readonly burst: number;
  readonly retryAfter: boolean;
  /** A front counting whole seconds instead of a token bucket (`burst` unused). */
  readonly window?: boolean;
  /** A front that refuses with 503, as nginx's `limit_req` does unless told otherwise (`retryAfter` false). */
  readonly busy?: boolean;
  /** Requests a second one stack's engine sends with no limit. */
  readonly engineRate: number;
  /**
   * Refusals that do not depend on the rate (`--faults`, the soak's faults situation): this share of
   * requests answered 503, and this share 429, each with `Retry-After: 1`, however slowly they come.
   */
  readonly faults?: { readonly busy: number; readonly refused: number };
}

interface Outcome {
  readonly seconds: number;
  /** When the first stack was done, as a share of the slowest's time: 1 when the shares were equal. */
  readonly firstDone: number;
  readonly ideal: number;
  readonly refusedShare: number;
  readonly failed: number;
}

const latencyMs = 10;
/**
 * `--jitter=<ms>`: each request reaches the front up to this much later than it left the gate, at
 * random, as a provider process's event loop, busy with the engine, and the way to the platform
 * delay it (measured up to about 15 ms here). Under a limit with no burst, two calls that arrive
 * closer than its interval are refused however they were spaced when they left.
 */
const jitterMs = Number(process.argv.find((a) => a.startsWith("--jitter="))?.slice("--jitter=".length) ?? 0);
/**
 * Resource operations in flight per stack: a model's choice, not the engine's setting; with the
 * think time below, it makes each stack send `engineRate` requests a second without a limit.
 */
const workers = 16;

async function simulate(shape: Shape, seed: number): Promise<Outcome> {
  const clock = new VirtualClock();
  const front = new Front(clock, shape.rate, shape.burst, shape.retryAfter, shape.window);
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let failed = 0;

  /** One request as retrying.ts makes it: attempts through the gate until served or out of attempts. */
  async function request(gate: Pace): Promise<void> {
    const started = clock.now();
    for (let attempts = 1; ; attempts++) {
      const ticket = await gate.acquire(attempts > 1);
      // From the gate to the platform's front: the answer's latency, and the jitter of the way there.
      // (No draw without jitter: the seeds' other draws, and so the figures of bench/README.md, stay.)
      await clock.sleep(latencyMs + (jitterMs > 0 ? jitterMs * random() : 0));
      const draw = shape.faults === undefined ? 1 : random();
      if (shape.faults !== undefined && draw < shape.faults.busy) {
        // A 503's retry waits its `Retry-After` on its own timer; the gate only eases its rate.
        gate.release(ticket, { kind: "busy" });
        await clock.sleep(1000);
        continue;
      }
      const faulted = shape.faults !== undefined && draw < shape.faults.busy + shape.faults.refused;
      if (faulted) front.refused += 1;
      const refusal = faulted ? 1000 : front.admit();
      const signal: Signal =
        refusal === undefined
          ? { kind: "accepted" }
          : shape.busy === true && !faulted
            ? { kind: "busy" }
            : refusal === null
              ? { kind: "refused" }
              : { kind: "refused", retryAfterMs: refusal };
      gate.release(ticket, signal);
      if (refusal === undefined) return;
      const policy = defaultRetryPolicy;
      const wait = refusal ?? backoffDelay(attempts - 1, policy, random);
      // A 429 and a 503 have the attempts of a refusal (retrying.ts).
      if (attempts >= policy.maxRefusedAttempts || clock.now() - started + wait > policy.maxTotalMs) {
        failed += 1;
        return;
      }
      // The refused request waits on its own timer, as retrying.ts does; the gate may hold the others.
      await clock.sleep(wait);
    }
  }

  const sharedGate = new Pace(clock);
  async function stack(): Promise<number> {
    const gate = shared ? sharedGate : new Pace(clock);
    let next = 0;
    const think = (workers / shape.engineRate) * 1000;
    await Promise.all(
      Array.from({ length: workers }, async (_, w) => {
        // Workers start spread over one think time, as the engine's steps do.
        await clock.sleep((think * w) / workers);
        while (next < shape.requests) {
          next += 1;
          await clock.sleep(think * (0.5 + random()));
          await request(gate);
        }
      }),
    );
    return clock.now();
  }

  const ends = await clock.run(Promise.all(Array.from({ length: shape.stacks }, stack)));
  const seconds = Math.max(...ends) / 1000;

  return {
    seconds,
    firstDone: Math.min(...ends) / Math.max(...ends),
    ideal: front.served / shape.rate,
    refusedShare: front.refused / front.served,
    failed,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;

const args = process.argv.slice(2);
/** `--faults`: no limit, the soak's random 503s (10 %) and 429s (5 %), 1 to 8 stacks of 100 requests. */
const faults = args.includes("--faults");
const shapes: Shape[] = [];
if (faults)
  for (const engineRate of [7, 40])
    for (const stacks of [1, 3, 8])
      shapes.push({
        stacks,
        requests: 100,
        // A limit that never binds (the front's arithmetic needs a finite one).
        rate: 1e9,
        burst: 1e9,
        retryAfter: true,
        engineRate,
        faults: { busy: 0.1, refused: 0.05 },
      });
else
  for (const engineRate of [7, 40])
    for (const retryAfter of [true, false])
      for (const [rate, burst] of [
        [10, 10],
        [10, 1],
        [5, 5],
        [50, 100],
      ] as const)
        for (const stacks of [1, 3, 5, 8]) shapes.push({ stacks, requests: 600, rate, burst, retryAfter, engineRate });
// Fronts that refuse with 503 and no `Retry-After`, with and without a burst.
if (!faults)
  for (const engineRate of [7, 40])
    for (const [rate, burst] of [
      [10, 10],
      [10, 1],
    ] as const)
      for (const stacks of [1, 3, 5, 8])
        shapes.push({ stacks, requests: 600, rate, burst, retryAfter: false, busy: true, engineRate });
// Whole-second windows (`rate` a second, nothing carried over), with `Retry-After` to the next.
for (const engineRate of [7, 40])
  for (const rate of [10, 5])
    for (const stacks of [1, 3, 5, 8])
      shapes.push({ stacks, requests: 600, rate, burst: rate, retryAfter: true, window: true, engineRate });

/** `--shared`: every stack's calls pass one gate, as provider processes on one machine share it. */
const shared = args.includes("--shared");
const rounds = Number(args.find((a) => !a.startsWith("--")) ?? 3);
console.log(
  "engine/s  limit/burst  Retry-After  stacks  time÷ideal  refused  failed  first done  (medians of %d seeds)",
  rounds,
);
for (const shape of shapes) {
  const outcomes: Outcome[] = [];
  for (let seed = 1; seed <= rounds; seed++) outcomes.push(await simulate(shape, seed * 7919));
  const ratio = median(outcomes.map((o) => o.seconds / Math.max(o.ideal, shape.requests / shape.engineRate)));
  const row = [
    String(shape.engineRate).padStart(8),
    (shape.faults ? "none" : shape.window ? `${shape.rate}/window` : `${shape.rate}/${shape.burst}`).padStart(11),
    (shape.busy === true ? "503, no" : shape.retryAfter ? "yes" : "no").padStart(11),
    String(shape.stacks).padStart(6),
    `${ratio.toFixed(2)}×`.padStart(10),
    `${(median(outcomes.map((o) => o.refusedShare)) * 100).toFixed(1)} %`.padStart(8),
    String(Math.max(...outcomes.map((o) => o.failed))).padStart(6),
    `${(median(outcomes.map((o) => o.firstDone)) * 100).toFixed(0)} %`.padStart(10),
  ];
  console.log(row.join("  "));
}
