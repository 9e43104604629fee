import { z } from "zod";

/**
 * Fault injection for retry tests, soaks and benchmarks (docs/api-contract.md §9, §9.1): added
 * latency, dropped connections and error statuses by rate, for every area, and answers lost or
 * garbled after the request was processed, for the management and transcription areas;
 * changeable at run time.
 */

export const faultConfigSchema = z
  .strictObject({
    statusRates: z
      .record(z.string().regex(/^[45]\d\d$/, "status codes must be 400 to 599"), z.number().min(0).max(1))
      .default({}),
    latencyMs: z.number().int().min(0).max(60_000).default(0),
    dropRate: z.number().min(0).max(1).default(0),
    loseRate: z.number().min(0).max(1).default(0),
    garbleRate: z.number().min(0).max(1).default(0),
    routes: z.string().min(1).optional(),
    retryAfterSeconds: z.number().int().min(0).max(3600).default(1),
    seed: z.number().int().min(0).max(0xffff_ffff).optional(),
  })
  .refine((c) => totalRate(c) <= 1, {
    message: "dropRate, the status rates, loseRate and garbleRate must add up to at most 1",
    path: ["statusRates"],
  });

function totalRate(c: { statusRates: Record<string, number>; dropRate: number; loseRate: number; garbleRate: number }) {
  // A tolerance, so that rates written as decimals (0.7 + 0.2 + 0.1) still add up to 1.
  return Object.values(c.statusRates).reduce((a, b) => a + b, 0) + c.dropRate + c.loseRate + c.garbleRate - 1e-9;
}

export type FaultConfig = z.infer<typeof faultConfigSchema>;

/** What a client sends to `PUT /_emulator/faults` or gives `startEmulator`: every field optional. */
export type FaultSettings = z.input<typeof faultConfigSchema>;

/**
 * `drop`: no answer, nothing processed. `status`: an error answer, nothing processed. `lose`: the
 * request is processed, then its connection is destroyed. `garble`: processed, then answered with
 * a body that is not JSON.
 */
export type FaultDecision =
  { kind: "none" } | { kind: "drop" } | { kind: "status"; status: number } | { kind: "lose" } | { kind: "garble" };

const NO_FAULTS: FaultConfig = faultConfigSchema.parse({});

/** Parses the CLI form `503=0.1,429=0.05`. */
export function parseStatusRates(text: string): Record<string, number> {
  const rates: Record<string, number> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "")) {
    const match = /^(\d{3})=(\d*\.?\d+)$/.exec(part);
    if (match === null) throw new Error(`--fault-rate: "${part}" is not <status>=<rate>, e.g. 503=0.1`);
    rates[match[1]!] = Number(match[2]);
  }
  return rates;
}

/**
 * Mulberry32, a small public-domain generator: enough spread for fault rolls, and the same
 * sequence for the same seed, so a test or a soak can replay the faults it saw. The soak's own
 * generator (test/soak/random.mts) is the same algorithm, written again on purpose: the emulator
 * ships on its own and cannot load the repository's scripts, which run as type-stripped ES modules
 * that cannot load the emulator's CommonJS sources.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
  };
}

export class FaultInjector {
  private config: FaultConfig = NO_FAULTS;
  private roll: () => number;

  constructor(private readonly random: () => number = Math.random) {
    this.roll = random;
  }

  get current(): FaultConfig {
    return this.config;
  }

  /** A `seed` restarts its sequence at every `set`, so each setting replays the same rolls. */
  set(config: FaultConfig): void {
    this.config = config;
    this.roll = config.seed === undefined ? this.random : seededRandom(config.seed);
  }

  /** Latency applies to every matching request; then at most one fault is drawn. */
  latencyFor(method: string, path: string): number {
    return this.applies(method, path) ? this.config.latencyMs : 0;
  }

  /**
   * One roll over consecutive slices of [0, 1): drop, the statuses in ascending order, lose,
   * garble. So each rate is exactly the share of matching requests that get its fault. An area
   * that cannot lose or garble an answer (S3) serves those slices normally.
   */
  decide(method: string, path: string, answerFaults = true): FaultDecision {
    if (!this.applies(method, path)) return { kind: "none" };
    const { dropRate, statusRates, loseRate, garbleRate } = this.config;
    if (dropRate + loseRate + garbleRate + Object.values(statusRates).reduce((a, b) => a + b, 0) === 0) {
      return { kind: "none" };
    }
    const slices: [number, FaultDecision][] = [
      [dropRate, { kind: "drop" }],
      ...Object.entries(statusRates).map(([status, rate]): [number, FaultDecision] => [
        rate,
        { kind: "status", status: Number(status) },
      ]),
      [loseRate, answerFaults ? { kind: "lose" } : { kind: "none" }],
      [garbleRate, answerFaults ? { kind: "garble" } : { kind: "none" }],
    ];
    const roll = this.roll();
    let cumulative = 0;
    for (const [rate, decision] of slices) {
      cumulative += rate;
      if (roll < cumulative) return decision;
    }
    return { kind: "none" };
  }

  /** `routes` filters by substring of `METHOD /path` (the raw path, before any area routes it). */
  private applies(method: string, path: string): boolean {
    return this.config.routes === undefined || `${method} ${path}`.includes(this.config.routes);
  }
}
