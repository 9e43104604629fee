/**
 * The transport: one sending of a prepared request over a keep-alive undici pool per origin (or
 * the client's own dispatcher), within its deadline, its answer's body read whole. It judges
 * nothing: a status of any kind is a `Reply`, a failed connection or a passed deadline `NoAnswer`.
 */
import type { Dispatcher, Pool } from "undici";
import type { Answer, Prepared } from "./types.js";

const pools = new Map<string, Pool>();

function poolFor(origin: string): Pool {
  let pool = pools.get(origin);
  if (pool === undefined) {
    // Loaded with the first request: a preview or an `up` without changes sends none, and undici
    // costs a provider process ~60 ms of CPU to load (bench/README.md, provider-start).
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when first needed
    const { Pool } = require("undici") as typeof import("undici");
    pool = new Pool(origin, { connections: 16, keepAliveTimeout: 30_000, pipelining: 1 });
    pools.set(origin, pool);
  }
  return pool;
}

/** Closes every pool (lets a test process or a CLI exit at once). */
export async function closePools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  await Promise.all(all.map((p) => p.close()));
}

/** Sends `req` with `authorization`; `dispatcher` replaces the pools (tests, proxies). */
export async function send(req: Prepared, authorization: string, dispatcher?: Dispatcher): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), req.timeoutMs);
  try {
    const res = await (dispatcher ?? poolFor(req.url.origin)).request({
      origin: req.url.origin,
      path: req.url.pathname + req.url.search,
      method: req.method,
      headers: { ...req.headers, authorization },
      body: req.body ?? null,
      signal: controller.signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
    });
    const text = await res.body.text();
    return { kind: "reply", status: res.statusCode, headers: res.headers, text };
  } catch (reason) {
    return { kind: "none", reason, timedOut: controller.signal.aborted };
  } finally {
    clearTimeout(timer);
  }
}
