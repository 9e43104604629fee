import { z } from "zod";

/**
 * Fault injection for retry tests and benchmarks (docs/api-contract.md §9): added latency,
 * dropped connections and error statuses by rate, for every area, changeable at run time.
 */

export const faultConfigSchema = z
  .strictObject({
    statusRates: z
      .record(z.string().regex(/^[45]\d\d$/, "status codes must be 400 to 599"), z.number().min(0).max(1))
      .default({}),
    latencyMs: z.number().int().min(0).max(60_000).default(0),
    dropRate: z.number().min(0).max(1).default(0),
    routes: z.string().min(1).optional(),
    retryAfterSeconds: z.number().int().min(0).max(3600).default(1),
  })
  .refine((c) => Object.values(c.statusRates).reduce((a, b) => a + b, 0) <= 1, {
    message: "the status rates must add up to at most 1",
    path: ["statusRates"],
  });

export type FaultConfig = z.infer<typeof faultConfigSchema>;

type FaultDecision = { kind: "none" } | { kind: "drop" } | { kind: "status"; status: number };

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

export class FaultInjector {
  private config: FaultConfig = NO_FAULTS;

  constructor(private readonly random: () => number = Math.random) {}

  get current(): FaultConfig {
    return this.config;
  }

  set(config: FaultConfig): void {
    this.config = config;
  }

  /** Latency applies to every matching request; then at most one fault is drawn. */
  latencyFor(method: string, path: string): number {
    return this.applies(method, path) ? this.config.latencyMs : 0;
  }

  decide(method: string, path: string): FaultDecision {
    if (!this.applies(method, path)) return { kind: "none" };
    if (this.config.dropRate > 0 && this.random() < this.config.dropRate) return { kind: "drop" };
    const roll = this.random();
    let cumulative = 0;
    for (const [status, rate] of Object.entries(this.config.statusRates)) {
      cumulative += rate;
      if (roll < cumulative) return { kind: "status", status: Number(status) };
    }
    return { kind: "none" };
  }

  /** `routes` filters by substring of `METHOD /path` (the raw path, before any area routes it). */
  private applies(method: string, path: string): boolean {
    return this.config.routes === undefined || `${method} ${path}`.includes(this.config.routes);
  }
}
