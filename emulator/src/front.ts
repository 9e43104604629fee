import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { maskPath, type RequestArea, type RequestLog } from "./console/request-log.js";
import type { FaultInjector } from "./faults.js";
import type { Logger } from "./interfaces.js";
import type { RateLimiter } from "./rate-limit.js";
import { requestContext, type RequestContext, type Stats } from "./stats.js";

/** A fault that lets the request be processed and then spoils its answer (docs/api-contract.md §9.1). */
export type AnswerFault = "lose" | "garble";

type Serve = (req: IncomingMessage, res: ServerResponse, url: URL, fault?: AnswerFault) => Promise<void> | void;

/** Writes an error answer the front produced itself, in the area's error format. */
export type Refuse = (
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  message: string,
  headers: Readonly<Record<string, string>>,
) => void;

interface FrontDeps {
  readonly faults: FaultInjector;
  readonly stats: Stats;
  readonly logger: Logger;
  readonly refuse: Refuse;
  /** Whether this port's area can lose or garble an answer after processing (not S3). */
  readonly answerFaults: boolean;
  /** A request whose body makes no progress for this long is answered 408 and closed; 0 = never. */
  readonly bodyIdleTimeoutMs: number;
  /** The API's rate limit, applied before fault injection (off unless set); none on the S3 port. */
  readonly rateLimit?: RateLimiter;
  /** Paths served before fault injection (the inspection endpoints must stay reachable). */
  readonly exempt?: { readonly test: (pathname: string) => boolean; readonly serve: Serve };
  /** Where the console's request list is kept, and the area a path belongs to; exempt paths are not kept. */
  readonly requests?: { readonly log: RequestLog; readonly area: (pathname: string) => RequestArea };
}

/**
 * What every request on both ports goes through: URL parsing, one log line and one entry in the
 * console's request list, the body idle timeout, fault injection, and a last-resort 500. Both have
 * the route template when the area named one, else the path; never the query string (presigned
 * signatures, upload tokens) nor any header.
 */
export function createFront(deps: FrontDeps, serve: Serve): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const started = performance.now();
    const arrived = Date.now();
    const method = req.method ?? "GET";
    const ctx: RequestContext = { route: undefined };
    const url = parseRequestUrl(req.url);
    res.on("close", () => {
      const status = res.headersSent ? res.statusCode : "dropped";
      const ms = Math.round(performance.now() - started);
      deps.logger.info("request", { method, route: ctx.route ?? url?.pathname ?? "(invalid url)", status, ms });
      if (deps.requests !== undefined && !(url !== undefined && deps.exempt?.test(url.pathname))) {
        keep(deps.requests, { arrived, method, pathname: url?.pathname, ctx, res, ms });
      }
    });
    watchBody(req, deps.bodyIdleTimeoutMs, () => {
      deps.logger.warn("request body stalled", { method, route: ctx.route ?? url?.pathname ?? "(invalid url)" });
      if (res.headersSent) {
        // The answer may be complete and detached from the socket: close the socket itself.
        req.socket.destroy();
        return;
      }
      const seconds = deps.bodyIdleTimeoutMs / 1000;
      deps.refuse(req, res, 408, `the request body made no progress for ${seconds} s; send the request again`, {
        connection: "close",
      });
    });
    if (url === undefined) {
      deps.refuse(req, res, 400, "the request target is not a valid path", {});
      return;
    }
    void requestContext.run(ctx, async () => {
      try {
        if (deps.exempt?.test(url.pathname)) {
          await deps.exempt.serve(req, res, url);
          return;
        }
        if (refuseOverLimit(deps, req, res)) return;
        const fault = await injectFault(deps, req, res, url);
        if (fault === "answered") return;
        await serve(req, res, url, fault);
      } catch (err) {
        deps.logger.error("request failed", {
          method,
          route: ctx.route ?? url.pathname,
          error: (err as Error).message,
        });
        if (!res.headersSent) deps.refuse(req, res, 500, "the emulator failed to serve this request; see its log", {});
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

/**
 * Answers 429 (or the configured 503) when the request's credential has used up its rate
 * (rate-limit.ts); true when it did. Otherwise sets the announced limit's headers, if any, on the
 * answer still to be written: the areas write with `writeHead(status, headers)`, which keeps them.
 */
function refuseOverLimit(deps: FrontDeps, req: IncomingMessage, res: ServerResponse): boolean {
  if (deps.rateLimit === undefined) return false;
  const { retryAfter, headers } = deps.rateLimit.admit(req.headers.authorization);
  if (retryAfter === undefined) {
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    return false;
  }
  noteFault("rate limit");
  const { requestsPerSecond, status, retryAfter: tellRetryAfter } = deps.rateLimit.current;
  // Without Retry-After the message cannot point at it: the client has to pick its own wait.
  const wait = tellRetryAfter ? "wait Retry-After seconds" : "wait";
  deps.refuse(
    req,
    res,
    status,
    `too many requests: this API key may send ${requestsPerSecond} per second; ${wait} and send the request again`,
    tellRetryAfter ? { ...headers, "retry-after": String(retryAfter) } : headers,
  );
  return true;
}

/**
 * Applies latency, then the drawn fault: a drop or a status is "answered" here; a lost or garbled
 * answer is handed to the area, which processes the request first.
 */
async function injectFault(
  deps: FrontDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<"answered" | AnswerFault | undefined> {
  const method = req.method ?? "GET";
  const latency = deps.faults.latencyFor(method, url.pathname);
  if (latency > 0) await sleep(latency);
  const decision = deps.faults.decide(method, url.pathname, deps.answerFaults);
  switch (decision.kind) {
    case "none":
      return undefined;
    case "lose":
    case "garble":
      deps.stats.countInjected(decision.kind);
      noteFault(decision.kind);
      return decision.kind;
    case "drop":
      deps.stats.countInjected("drop");
      noteFault("drop");
      req.socket.destroy();
      return "answered";
    case "status": {
      deps.stats.countInjected(String(decision.status));
      noteFault(String(decision.status));
      const headers: Record<string, string> = {};
      if (decision.status === 429 || decision.status === 503) {
        headers["retry-after"] = String(deps.faults.current.retryAfterSeconds);
      }
      deps.refuse(req, res, decision.status, "fault injected by the emulator (see PUT /_emulator/faults)", headers);
      return "answered";
    }
  }
}

/** Adds a finished request to the console's list, with what the log line says and no more. */
function keep(
  requests: NonNullable<FrontDeps["requests"]>,
  done: {
    arrived: number;
    method: string;
    pathname: string | undefined;
    ctx: RequestContext;
    res: ServerResponse;
    ms: number;
  },
): void {
  const { method, ctx, res } = done;
  const status = res.headersSent ? res.statusCode : null;
  // S3 names its error in a header; the other areas note it while answering (noteError).
  const s3Code = res.getHeader("x-amz-error-code");
  const error = ctx.error ?? (typeof s3Code === "string" ? s3Code : undefined);
  let route: string;
  if (ctx.route === undefined) route = done.pathname === undefined ? "(invalid url)" : maskPath(done.pathname);
  else route = ctx.route.startsWith(`${method} `) ? ctx.route.slice(method.length + 1) : ctx.route;
  requests.log.add({
    time: new Date(done.arrived).toISOString(),
    method,
    route,
    area: requests.area(done.pathname ?? "/"),
    status,
    ms: done.ms,
    ...(error !== undefined && status !== null && status >= 400 ? { error } : {}),
    ...(ctx.fault !== undefined ? { fault: ctx.fault } : {}),
  });
}

function noteFault(kind: string): void {
  const ctx = requestContext.getStore();
  if (ctx !== undefined) ctx.fault = kind;
}

/**
 * Calls `onIdle` when the request body has not advanced for `idleMs` while the handler was ready
 * for more. Slow bodies that keep moving (multi-GB uploads on a poor link) are never cut; a body
 * the handler is not reading yet (its buffer is full) is not the client's stall.
 */
function watchBody(req: IncomingMessage, idleMs: number, onIdle: () => void): void {
  if (idleMs <= 0 || req.complete) return;
  const socket = req.socket;
  let seen = socket.bytesRead;
  let progressAt = performance.now();
  const timer = setInterval(
    () => {
      // Not done when the answer is: a body still owed holds the connection until it arrives.
      if (req.complete || socket.destroyed) {
        stop();
        return;
      }
      if (socket.bytesRead !== seen || req.readableLength >= req.readableHighWaterMark) {
        seen = socket.bytesRead;
        progressAt = performance.now();
        return;
      }
      if (performance.now() - progressAt >= idleMs) {
        stop();
        onIdle();
      }
    },
    Math.max(10, Math.min(idleMs / 4, 5_000)),
  );
  timer.unref();
  // The socket outlives the request on a keep-alive connection: its listener goes with the watch,
  // or every request with a body would leave one behind (a leak, and Node's MaxListeners warning).
  function stop(): void {
    clearInterval(timer);
    socket.off("close", stop);
  }
  socket.once("close", stop);
  req.once("end", stop);
  req.once("close", stop);
}
