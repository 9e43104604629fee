import { AsyncLocalStorage } from "node:async_hooks";
import type { RouteCounter } from "./interfaces.js";

type Area = "management" | "s3" | "transcription";

/** Per-request facts the front needs for its log line, filled in by whichever area serves it. */
export interface RequestContext {
  route: string | undefined;
}

/** Lets an area's `counter.count()` name the route of the request being served, for the log line. */
export const requestContext = new AsyncLocalStorage<RequestContext>();

/** Request counts for GET /_emulator/stats (docs/api-contract.md §9). */
export class Stats implements RouteCounter {
  private requests = new Map<string, number>();
  /** S3 route counts per bucket named in the path, so a test can tell one bucket's traffic from another's. */
  private s3Buckets = new Map<string, Map<string, number>>();
  private areas: Record<Area, number> = { management: 0, s3: 0, transcription: 0 };
  private writes = 0;
  private injected = new Map<string, number>();

  count(area: Area, route: string, write: boolean, bucket?: string): void {
    this.requests.set(route, (this.requests.get(route) ?? 0) + 1);
    if (area === "s3" && bucket !== undefined) {
      let routes = this.s3Buckets.get(bucket);
      if (!routes) this.s3Buckets.set(bucket, (routes = new Map()));
      routes.set(route, (routes.get(route) ?? 0) + 1);
    }
    this.areas[area] += 1;
    if (write && area !== "s3") this.writes += 1;
    const ctx = requestContext.getStore();
    if (ctx !== undefined) ctx.route = route;
  }

  /** Counts a fault the front injected instead of serving the request ("503", "429", "drop"). */
  countInjected(kind: string): void {
    this.injected.set(kind, (this.injected.get(kind) ?? 0) + 1);
  }

  snapshot(): {
    requests: Record<string, number>;
    s3Buckets: Record<string, Record<string, number>>;
    writes: number;
    areas: Record<Area, number>;
    injected: Record<string, number>;
  } {
    return {
      requests: Object.fromEntries(this.requests),
      s3Buckets: Object.fromEntries(
        [...this.s3Buckets].map(([bucket, routes]) => [bucket, Object.fromEntries(routes)]),
      ),
      writes: this.writes,
      areas: { ...this.areas },
      injected: Object.fromEntries(this.injected),
    };
  }

  reset(): void {
    this.requests = new Map();
    this.s3Buckets = new Map();
    this.areas = { management: 0, s3: 0, transcription: 0 };
    this.writes = 0;
    this.injected = new Map();
  }
}
