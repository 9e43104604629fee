// The emulator as the soak sees it from outside Pulumi: its inspection endpoints
// (docs/api-contract.md §9), among them the inventory of every object, and the management API
// called with the dashboard token, as a person deleting something by hand would.
import type { EmulatorEndpoints } from "../../scripts/lib/emulator-process.mts";
import type { Inventory, PlatformBucket, PlatformZone } from "./compare.mts";

/** Fault settings of `PUT /_emulator/faults` (§9, §9.1). */
export interface Faults {
  readonly latencyMs?: number;
  readonly statusRates?: Readonly<Record<string, number>>;
  readonly dropRate?: number;
  readonly loseRate?: number;
  readonly garbleRate?: number;
  readonly routes?: string;
  readonly retryAfterSeconds?: number;
  /** Replays the same rolls for the same sequence of requests (§9). */
  readonly seed?: number;
}

export interface Stats {
  readonly writes: number;
  readonly injected: Readonly<Record<string, number>>;
}

export type FaultsOutcome = { readonly accepted: true } | { readonly accepted: false; readonly reason: string };

const timeout = (): AbortSignal => AbortSignal.timeout(15_000);

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

  async clearFaults(): Promise<void> {
    const outcome = await this.setFaults({});
    if (!outcome.accepted) throw new Error(`the emulator refused to clear its faults: ${outcome.reason}`);
  }

  /** Empties the platform and its counters between rounds. */
  async reset(): Promise<void> {
    const response = await this.call("POST", "/_emulator/reset");
    if (!response.ok) throw new Error(`POST /_emulator/reset answered ${response.status}`);
  }

  async stats(): Promise<Stats> {
    const s = await this.json<{ writes?: number; injected?: Record<string, number> }>("GET", "/_emulator/stats");
    return { writes: s.writes ?? 0, injected: s.injected ?? {} };
  }

  /**
   * Every bucket (with its credentials) and every zone, from `GET /_emulator/inventory` (§9): one
   * answer in the canonical shape, never subject to faults.
   */
  async inventory(): Promise<Inventory> {
    const inventory = await this.json<{
      buckets: Array<{ id: string; name: string }>;
      zones: Array<{ id: string; name: string }>;
      credentials: Array<{ bucket_id: string; access_key_id: string }>;
    }>("GET", "/_emulator/inventory");
    const buckets = inventory.buckets.map((b): PlatformBucket => ({
      id: b.id,
      name: b.name,
      credentials: inventory.credentials.filter((c) => c.bucket_id === b.id).map((c) => c.access_key_id),
    }));
    return { buckets, zones: inventory.zones.map((z): PlatformZone => ({ id: z.id, name: z.name })) };
  }

  /** What a user does by hand when a zone blocks their `up`: delete it through the management API. */
  async deleteZone(id: string): Promise<void> {
    const response = await this.call("DELETE", `/dns/zones/${encodeURIComponent(id)}`);
    if (!response.ok && response.status !== 404) throw new Error(`DELETE /dns/zones/${id} answered ${response.status}`);
  }
}
