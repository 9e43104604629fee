// The emulator as the tests, the soak and the benchmarks see it from outside Pulumi: its inspection
// endpoints (docs/api-contract.md §9), and the management API called with the dashboard token, as a
// person deleting something by hand would. The one client of `/_emulator/...`: plain Node runs it
// (the soak, the benchmarks), so its syntax stays erasable.
import type { FaultSettings, RateLimitConfig, RateLimitSettings } from "cloudplatform-emulator";
import type { EmulatorEndpoints } from "../../scripts/lib/emulator-process.mts";
import type { Inventory, PlatformBucket, PlatformZone } from "./compare.mts";

/** Fault settings of `PUT /_emulator/faults` (§9, §9.1), as the emulator declares them. */
export type Faults = Readonly<FaultSettings>;

/** `GET /_emulator/state`: how many objects of each kind exist. */
export interface EmulatorState {
  readonly buckets: number;
  readonly objects: number;
  readonly credentials: number;
  readonly zones: number;
  readonly transcripts: number;
}

/** `GET /_emulator/stats`: request counts since the start (or the last reset). */
export interface EmulatorStats {
  /** By route template, every area. */
  readonly requests: Readonly<Record<string, number>>;
  /** S3 requests by bucket, then by route template. */
  readonly s3Buckets: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Management and transcription requests that change something. */
  readonly writes: number;
  readonly areas: Readonly<Record<"management" | "s3" | "transcription", number>>;
  /** Faults injected, by kind ("503", "drop", "lose", ...). */
  readonly injected: Readonly<Record<string, number>>;
}

/** `GET /_emulator/inventory`: every object by the emulator's own identity. */
export interface EmulatorInventory {
  readonly buckets: ReadonlyArray<{ readonly id: string; readonly name: string; readonly storage_class: string }>;
  readonly zones: ReadonlyArray<{ readonly id: string; readonly name: string }>;
  readonly credentials: ReadonlyArray<{
    readonly bucket_id: string;
    readonly access_key_id: string;
    readonly active: boolean;
  }>;
  readonly transcripts: ReadonlyArray<{ readonly id: string; readonly status: string }>;
}

export type RateLimitState = RateLimitConfig & { readonly allowed: number; readonly refused: number };

export type FaultsOutcome = { readonly accepted: true } | { readonly accepted: false; readonly reason: string };

const timeout = (): AbortSignal => AbortSignal.timeout(15_000);

/** An emulator in this process (`startEmulator`) or a child process (`startEmulatorProcess`): both have these. */
export class Platform {
  readonly endpoints: EmulatorEndpoints;

  constructor(endpoints: EmulatorEndpoints) {
    this.endpoints = endpoints;
  }

  private async call(method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(`${this.endpoints.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.endpoints.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: timeout(),
    });
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.call(method, path, body);
    if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as T;
  }

  /** Sets the faults; a refusal (an emulator that does not know a field yet) is an answer, not an error. */
  async setFaults(faults: Faults): Promise<FaultsOutcome> {
    const response = await this.call("PUT", "/_emulator/faults", faults);
    if (response.ok) return { accepted: true };
    return { accepted: false, reason: `${response.status} ${(await response.text()).slice(0, 300)}` };
  }

  /** The rate limit and its counters (`GET /_emulator/rate-limit`, docs/api-contract.md §9.5). */
  rateLimit(): Promise<RateLimitState> {
    return this.json("GET", "/_emulator/rate-limit");
  }

  /** When each request the console still keeps (the last 1,000) arrived, and whether the rate limit refused it. */
  async requestTimes(): Promise<{ readonly at: number; readonly refused: boolean }[]> {
    const log = await this.json<{ requests: { time: string; fault?: string }[] }>(
      "GET",
      "/_emulator/console/api/requests",
    );
    return log.requests.map((r) => ({ at: Date.parse(r.time), refused: r.fault === "rate limit" }));
  }

  /** Sets the rate limit (`{ requestsPerSecond: 0 }` turns it off); answers its state. */
  setRateLimit(settings: RateLimitSettings): Promise<RateLimitState> {
    return this.json("PUT", "/_emulator/rate-limit", settings);
  }

  async clearFaults(): Promise<void> {
    const outcome = await this.setFaults({});
    if (!outcome.accepted) throw new Error(`the emulator refused to clear its faults: ${outcome.reason}`);
  }

  /** Empties the platform and its counters between rounds. */
  async reset(): Promise<void> {
    const response = await this.call("POST", "/_emulator/reset");
    if (!response.ok) throw new Error(`POST /_emulator/reset answered ${response.status}`);
  }

  state(): Promise<EmulatorState> {
    return this.json("GET", "/_emulator/state");
  }

  stats(): Promise<EmulatorStats> {
    return this.json("GET", "/_emulator/stats");
  }

  /** Every object by identity, as `GET /_emulator/inventory` (§9) lists them: never subject to faults. */
  objects(): Promise<EmulatorInventory> {
    return this.json("GET", "/_emulator/inventory");
  }

  /** Every bucket (with its credentials' access key ids) and every zone: what the soak compares. */
  async inventory(): Promise<Inventory> {
    const inventory = await this.objects();
    const buckets = inventory.buckets.map((b): PlatformBucket => ({
      id: b.id,
      name: b.name,
      credentials: inventory.credentials.filter((c) => c.bucket_id === b.id).map((c) => c.access_key_id),
    }));
    return { buckets, zones: inventory.zones.map((z): PlatformZone => ({ id: z.id, name: z.name })) };
  }

  /** The transcription account's balance in USD (§9). */
  async balance(): Promise<number> {
    return (await this.json<{ balance_usd: number }>("GET", "/_emulator/balance")).balance_usd;
  }

  async setBalance(usd: number): Promise<void> {
    await this.json("PUT", "/_emulator/balance", { balance_usd: usd });
  }

  /** What a user does by hand when a zone blocks their `up`: delete it through the management API. */
  async deleteZone(id: string): Promise<void> {
    const response = await this.call("DELETE", `/dns/zones/${encodeURIComponent(id)}`);
    if (!response.ok && response.status !== 404) throw new Error(`DELETE /dns/zones/${id} answered ${response.status}`);
  }
}

/** The emulator's counts of objects (a shorthand of the tests). */
export function emulatorState(emulator: EmulatorEndpoints): Promise<EmulatorState> {
  return new Platform(emulator).state();
}

/** The emulator's request counts (a shorthand of the tests). */
export function emulatorStats(emulator: EmulatorEndpoints): Promise<EmulatorStats> {
  return new Platform(emulator).stats();
}
