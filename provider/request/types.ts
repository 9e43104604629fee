/**
 * The words of a request as it goes through its stages (docs/architecture.md, "A request"): what a
 * caller asks (`RequestOptions`), the request made from it (`Prepared`), what the transport brings
 * back (`Answer`), what one attempt came to (`Outcome`), and what the caller gets (`ApiResponse`).
 */
import type { Dispatcher } from "undici";
import type { Auth } from "../config.js";
import type { CloudPlatformError } from "../errors.js";
import type { RetryPolicy } from "../retry.js";
import type { Clock } from "../vocabulary.js";
import type { Reader } from "../answers/find.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";

/** `management` = `{baseUrl}`, `transcription` = `{apiUrl}` (docs/api-contract.md §1). */
export type Base = "management" | "transcription";

export interface RequestOptions<T> {
  readonly method: HttpMethod;
  /** Path after the base URL, starting with `/`; ids must already be URL-encoded (use `pathOf`). */
  readonly path: string;
  /** @default "management" */
  readonly base?: Base;
  /** Sent as JSON. */
  readonly body?: unknown;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Parses the JSON body of a successful response; without it the body is returned as `unknown`. */
  readonly schema?: Reader<T>;
  /**
   * Whether repeating the request is harmless. Defaults to true for GET, HEAD, PUT and DELETE and
   * false for POST and PATCH.
   */
  readonly idempotent?: boolean;
  /**
   * For a non-idempotent request whose outcome is unknown (no answer, a gateway error, or a 2xx
   * whose body cannot be used): finds what the request produced. A value ends the request with it
   * (`reconciled: true`); undefined means it did not happen, so the request is repeated. Also asked
   * when a repeat is refused with `409` after such an outcome: the earlier attempt took the name.
   */
  readonly reconcile?: () => Promise<T | undefined>;
  /**
   * What the user should do when a non-idempotent request without `reconcile` may have been
   * processed and cannot be repeated safely (the end of an `OutcomeUnknownError`'s message).
   */
  readonly unknownOutcomeAdvice?: string;
  /** Deadline of one attempt, headers and body included. @default 30000 */
  readonly timeoutMs?: number;
  /** Statuses accepted as success. @default any 2xx */
  readonly expectedStatus?: number | readonly number[];
}

export interface ApiResponse<T> {
  readonly status: number;
  readonly data: T;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** True when `data` was found by `reconcile` after an unknown outcome, not read from an answer. */
  readonly reconciled?: boolean;
}

export interface ClientOptions {
  /** Replaces the per-origin pools (tests, proxies). */
  readonly dispatcher?: Dispatcher;
  readonly retry?: Partial<RetryPolicy>;
  readonly defaultTimeoutMs?: number;
  /** Time between retries and their budget (the host's clock; tests make it instant). */
  readonly clock?: Clock;
  readonly userAgent?: string;
  readonly onRetry?: (message: string) => void;
  /**
   * The credential the run authenticates with now. A run that rotates its own API key (an ApiKey
   * resource) answers here with the new one, while requests sent with the old key may still be in
   * flight: one the platform refuses is sent again with the new key (request/authenticate.ts).
   */
  readonly currentAuth?: () => Auth;
}

/** A request ready to send but for its Authorization header, which `authenticate` chooses. */
export interface Prepared {
  /** `METHOD /path`, as errors and log lines name the request. */
  readonly endpoint: string;
  readonly method: HttpMethod;
  readonly base: Base;
  readonly url: URL;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  /** Deadline of one attempt, headers and body included. */
  readonly timeoutMs: number;
  readonly idempotent: boolean;
}

/** An HTTP answer of any status, its body read whole. */
export interface Reply {
  readonly kind: "reply";
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

/** No answer: the connection failed, or the deadline passed (`timedOut`). */
export interface NoAnswer {
  readonly kind: "none";
  /** What the transport threw. */
  readonly reason: unknown;
  readonly timedOut: boolean;
}

/** What one sending of a request brought back. */
export type Answer = Reply | NoAnswer;

/**
 * What a failed attempt says of the request, which decides what may follow it (contract §2.2):
 * - `answered`: an error status that a repeat would not change (4xx but 429, 500, 501): it ends there;
 * - `notProcessed`: certainly not processed (429, 503, a connection that failed before sending):
 *   it may be sent again, even a create;
 * - `unknown`: maybe processed, its answer lost (no answer, a gateway's 502 or 504): an idempotent
 *   request is sent again, a create reconciled first;
 * - `unreadable`: processed (a 2xx), but its body cannot be used: a create is reconciled, an
 *   idempotent request sent again only when the body was spoiled on the way.
 */
export type Fate = "answered" | "notProcessed" | "unknown" | "unreadable";

export interface Failure {
  readonly ok: false;
  readonly error: CloudPlatformError;
  readonly fate: Fate;
  /** The wait the server asked for (`Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number;
  /** For an `unreadable` answer: not JSON at all (a proxy's page, a cut answer) rather than JSON of another shape. */
  readonly spoiled?: boolean;
}

export interface Success<T> {
  readonly ok: true;
  readonly response: ApiResponse<T>;
}

/** What one attempt came to. */
export type Outcome<T> = Success<T> | Failure;

/** One attempt of a request, made as often as the retry stage decides. */
export type Attempt<T> = () => Promise<Outcome<T>>;
