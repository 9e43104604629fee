import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { FaultInjector } from "./faults.js";
import { sendJson } from "./http-io.js";
import type { Logger } from "./interfaces.js";
import { requestContext, type RequestContext, type Stats } from "./stats.js";

type Serve = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void;

interface FrontDeps {
  readonly faults: FaultInjector;
  readonly stats: Stats;
  readonly logger: Logger;
  /** How injected errors are written: JSON for the APIs, XML for S3. */
  readonly errorFormat: "json" | "s3-xml";
  /** Paths served before fault injection (the inspection endpoints must stay reachable). */
  readonly exempt?: { readonly test: (pathname: string) => boolean; readonly serve: Serve };
}

/**
 * What every request on both ports goes through: URL parsing, one log line, fault injection,
 * and a last-resort 500. The log line has the route template when the area named one, else the
 * path; never the query string (presigned signatures, upload tokens) nor any header.
 */
export function createFront(deps: FrontDeps, serve: Serve): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    const method = req.method ?? "GET";
    const ctx: RequestContext = { route: undefined };
    const url = parseRequestUrl(req.url);
    res.on("close", () => {
      const status = res.headersSent ? res.statusCode : "dropped";
      deps.logger.info("request", {
        method,
        route: ctx.route ?? url?.pathname ?? "(invalid url)",
        status,
        ms: Math.round(performance.now() - started),
      });
    });
    if (url === undefined) {
      sendJson(res, 400, { error: { code: "validation_error", message: "the request target is not a valid path" } });
      return;
    }
    void requestContext.run(ctx, async () => {
      try {
        if (deps.exempt?.test(url.pathname)) {
          await deps.exempt.serve(req, res, url);
          return;
        }
        if (await injectFault(deps, req, res, url)) return;
        await serve(req, res, url);
      } catch (err) {
        deps.logger.error("request failed", {
          method,
          route: ctx.route ?? url.pathname,
          error: (err as Error).message,
        });
        if (!res.headersSent)
          writeError(res, deps.errorFormat, 500, "the emulator failed to serve this request; see its log", {});
        else res.destroy();
      }
    });
  };
}

/** The `req.url` of an origin-form request, parsed without treating `//x` as a host. */
function parseRequestUrl(raw: string | undefined): URL | undefined {
  if (raw === undefined || !raw.startsWith("/")) return undefined;
  try {
    return new URL(`http://emulator.invalid${raw}`);
  } catch {
    return undefined;
  }
}

/** Returns true when the request was answered (or dropped) by an injected fault. */
async function injectFault(deps: FrontDeps, req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
  const method = req.method ?? "GET";
  const latency = deps.faults.latencyFor(method, url.pathname);
  if (latency > 0) await sleep(latency);
  const decision = deps.faults.decide(method, url.pathname);
  if (decision.kind === "none") return false;
  if (decision.kind === "drop") {
    deps.stats.countInjected("drop");
    req.socket.destroy();
    return true;
  }
  deps.stats.countInjected(String(decision.status));
  const headers: Record<string, string> = {};
  if (decision.status === 429 || decision.status === 503) {
    headers["retry-after"] = String(deps.faults.current.retryAfterSeconds);
  }
  writeError(
    res,
    deps.errorFormat,
    decision.status,
    "fault injected by the emulator (see PUT /_emulator/faults)",
    headers,
  );
  return true;
}

const JSON_CODES: Record<number, string> = { 429: "rate_limited", 500: "internal", 503: "unavailable" };
const S3_CODES: Record<number, string> = { 429: "SlowDown", 500: "InternalError", 503: "ServiceUnavailable" };

function writeError(
  res: ServerResponse,
  format: "json" | "s3-xml",
  status: number,
  message: string,
  headers: Record<string, string>,
): void {
  if (format === "json") {
    const code = JSON_CODES[status] ?? (status >= 500 ? "unavailable" : "injected_fault");
    sendJson(res, status, { error: { code, message } }, headers);
    return;
  }
  const code = S3_CODES[status] ?? (status >= 500 ? "ServiceUnavailable" : "InvalidRequest");
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
  res.writeHead(status, {
    "content-type": "application/xml",
    "content-length": String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}
