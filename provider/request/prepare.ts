/**
 * The first stage of a request: what the caller asked, made into what is sent (the URL with its
 * query, the headers but Authorization, the JSON body, the deadline, whether it may be repeated).
 */
import type { Settings } from "../config.js";
import type { ClientOptions, Prepared, RequestOptions } from "./types.js";

/** Deadline of one attempt when neither the request nor the client sets one (contract §2.2). */
const defaultTimeoutMs = 30_000;

export function prepare(
  opts: RequestOptions<unknown>,
  settings: Pick<Settings, "baseUrl" | "apiUrl">,
  client: Pick<ClientOptions, "defaultTimeoutMs" | "userAgent">,
): Prepared {
  const base = opts.base ?? "management";
  const url = new URL((base === "management" ? settings.baseUrl : settings.apiUrl) + opts.path);
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = {
    accept: "application/json",
    "user-agent": client.userAgent ?? "pulumi-cloudplatform",
  };
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json; charset=utf-8";
  } else if (opts.method === "POST") {
    // The spec sends a JSON content type even on body-less POSTs (§4.1).
    body = "{}";
    headers["content-type"] = "application/json; charset=utf-8";
  }
  return {
    endpoint: `${opts.method} ${opts.path}`,
    method: opts.method,
    base,
    url,
    headers,
    body,
    timeoutMs: opts.timeoutMs ?? client.defaultTimeoutMs ?? defaultTimeoutMs,
    idempotent: opts.idempotent ?? !(opts.method === "POST" || opts.method === "PATCH"),
  };
}
