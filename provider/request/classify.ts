/**
 * Classifying what did not succeed: an error status or no answer becomes a typed error (errors.ts)
 * that names the endpoint and says what to do, with its fate, which decides whether the request
 * may be sent again (contract §2.1, §2.2). Server text is redacted and cut before it reaches a
 * message.
 */
import type { Settings } from "../config.js";
import {
  BadRequestError,
  ConflictError,
  HttpError,
  NetworkError,
  NotFoundError,
  RateLimitedError,
  TimeoutError,
  UnauthorizedError,
} from "../errors.js";
import { safeText } from "../redact.js";
import { notProcessedStatuses, parseRetryAfter, retryableStatuses } from "../retry.js";
import { readErrorBody } from "../answers/error-body.js";
import { refusedCredential } from "./authenticate.js";
import { refusalWaitMs } from "./rate-headers.js";
import type { Answer, Failure, NoAnswer, Prepared, Reply } from "./types.js";

/** `answer`, which is not a success, as a failure. `now`: the time a `Retry-After` date is read against. */
export function classify(
  answer: Answer,
  req: Pick<Prepared, "endpoint" | "url" | "timeoutMs">,
  auth: Settings["auth"]["kind"],
  now: number,
): Failure {
  return answer.kind === "reply" ? errorStatus(answer, req.endpoint, auth, now) : noAnswer(answer, req);
}

function errorStatus(reply: Reply, endpoint: string, auth: Settings["auth"]["kind"], now: number): Failure {
  const status = reply.status;
  const error = httpError(reply, endpoint, auth);
  if (!retryableStatuses.has(status)) return { ok: false, fate: "answered", error };
  // A refusal without `Retry-After` may still say when its limit resets (rate-headers.ts).
  const retryAfterMs =
    status === 429 ? refusalWaitMs(reply.headers, now) : parseRetryAfter(reply.headers["retry-after"], now);
  return {
    ok: false,
    fate: notProcessedStatuses.has(status) ? "notProcessed" : "unknown",
    error,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  };
}

/** Error codes that say the connection failed before the request was written. */
const notSentCodes = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

function noAnswer(none: NoAnswer, req: Pick<Prepared, "endpoint" | "url" | "timeoutMs">): Failure {
  const { endpoint } = req;
  const todo = `Check that ${req.url.origin} is reachable.`;
  const code = errorCode(none.reason);
  if (none.timedOut || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
    const error = new TimeoutError(`${endpoint} did not answer within ${req.timeoutMs} ms`, todo, {
      endpoint,
      retryable: true,
    });
    return { ok: false, fate: "unknown", error };
  }
  const error = new NetworkError(`${endpoint} failed: connection error ${code}`, todo, { endpoint, retryable: true });
  return { ok: false, fate: notSentCodes.has(code) ? "notProcessed" : "unknown", error };
}

/** The `code` of a transport error or of one of its causes (undici wraps the socket's). */
function errorCode(err: unknown): string {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return "UNKNOWN";
}

/** What to check when the platform refuses the credential: the setting in use, by both its names. */
const refusedHints: Record<Settings["auth"]["kind"], string> = {
  apiKey:
    "The platform refused the API key: check cloudplatform:apiKey (or CLOUDPLATFORM_API_KEY); a rotated key stops working at once.",
  token:
    "The platform refused the dashboard token: check cloudplatform:token (or CLOUDPLATFORM_TOKEN); a JWT expires with its session.",
};

const hints: Record<number, string> = {
  400: "Fix the value the message names.",
  404: "The object does not exist (it may have been deleted outside Pulumi).",
  409: "The name is taken or the object is in a conflicting state.",
  429: "The API is rate limiting this project; try again later.",
};

function httpError(reply: Reply, endpoint: string, auth: Settings["auth"]["kind"]): HttpError {
  const { apiCode, message } = readErrorBody(reply.text);
  const status = reply.status;
  const server = message === undefined ? "" : `: ${safeText(message)}`;
  const hint = refusedCredential(status)
    ? refusedHints[auth]
    : (hints[status === 410 ? 404 : status] ?? (status >= 500 ? "The platform failed; try again later." : ""));
  return new (httpErrorClasses[status] ?? HttpError)(
    `${endpoint} failed with ${status}${apiCode === undefined ? "" : ` ${safeText(apiCode, 60)}`}${server}`,
    hint,
    { status, endpoint, retryable: retryableStatuses.has(status), ...(apiCode === undefined ? {} : { apiCode }) },
  );
}

/** Statuses callers handle by class; any other is an `HttpError` with code `CLOUDPLATFORM_HTTP_<status>`. */
const httpErrorClasses: Record<number, typeof HttpError> = {
  400: BadRequestError,
  422: BadRequestError,
  401: UnauthorizedError,
  403: UnauthorizedError,
  404: NotFoundError,
  // Gone: a platform that remembers deleted objects says so instead of 404.
  410: NotFoundError,
  409: ConflictError,
  429: RateLimitedError,
};
