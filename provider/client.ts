/**
 * The platform's HTTP client: one keep-alive undici pool per origin, a deadline per request,
 * bounded retries (retry.ts), JSON bodies parsed with zod, and typed errors (errors.ts) that name
 * the endpoint and never a secret.
 *
 * A request that is not idempotent (a create) is never repeated blindly once it may have been
 * processed (no answer, a gateway error, or a 2xx whose body cannot be used): the caller's
 * `reconcile` looks for what it produced first (docs/api-contract.md §2.4), and without one the
 * request is repeated only when the connection failed before anything was sent.
 */
import type { Dispatcher, Pool } from "undici";
import type { z } from "zod";
import {
  BadRequestError,
  CloudPlatformError,
  ConflictError,
  HttpError,
  NetworkError,
  NotFoundError,
  OutcomeUnknownError,
  RateLimitedError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedResponseError,
} from "./errors.js";
import { safeText } from "./redact.js";
import {
  backoffDelay,
  defaultRetryPolicy,
  notProcessedStatuses,
  parseRetryAfter,
  retryableStatuses,
  type RetryPolicy,
} from "./retry.js";
import type { Settings } from "./config.js";
import { systemClock, type Clock } from "./vocabulary.js";
import { readErrorBody } from "./answers/error-body.js";
import { receivedKeys, type Reader } from "./answers/find.js";
import { ShapeProblem } from "./answers/object.js";

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
}

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

/** Builds a path from literal segments and ids, encoding the ids. */
export function pathOf(strings: TemplateStringsArray, ...ids: readonly string[]): string {
  return strings.reduce((acc, s, i) => acc + s + (i < ids.length ? encodeURIComponent(ids[i] as string) : ""), "");
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

interface Attempt {
  readonly kind: "response";
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

interface Failure {
  readonly kind: "failure";
  readonly error: CloudPlatformError;
  /** Whether the request may have reached the server. */
  readonly maybeSent: boolean;
}

export class ApiClient {
  readonly settings: Settings;
  private readonly options: ClientOptions;
  private readonly policy: RetryPolicy;
  /** Bases that took `Bearer <api_key>` after refusing the raw key (see `authorizedAttempt`). */
  private readonly bearerBases = new Set<Base>();

  constructor(settings: Settings, options: ClientOptions = {}) {
    this.settings = settings;
    this.options = options;
    this.policy = { ...defaultRetryPolicy, ...options.retry };
  }

  /** The general request; the typed calls are in each resource's `api.ts`. */
  async request<T = unknown>(opts: RequestOptions<T>): Promise<ApiResponse<T>> {
    const endpoint = `${opts.method} ${opts.path}`;
    const idempotent = opts.idempotent ?? !(opts.method === "POST" || opts.method === "PATCH");
    const { now, sleep } = this.options.clock ?? systemClock;
    const started = now();
    let lastError: CloudPlatformError | undefined;
    // An earlier attempt of this request may have been processed, its answer lost or unreadable.
    let outcomeUnknown = false;
    let unreadable = 0;

    let attempt = 0;
    for (; attempt < this.policy.maxAttempts; attempt++) {
      const result = await this.authorizedAttempt(opts, endpoint);
      let retryAfter: number | undefined;
      let maybeSent: boolean;
      if (result.kind === "response" && isExpected(result.status, opts.expectedStatus)) {
        const parsed = parseAnswer(result, opts.schema, endpoint);
        if (parsed.ok) return { status: result.status, headers: result.headers, data: parsed.data };
        // Processed for sure (a 2xx), but what it produced is unknown: as good as a lost answer. An
        // idempotent request is repeated when the answer was spoiled on the way (not JSON); JSON of a
        // shape it cannot use is the platform's own answer, the same every time.
        lastError = parsed.error;
        maybeSent = true;
        unreadable++;
        if (idempotent && (!parsed.spoiled || unreadable > maxUnreadableRepeats)) throw lastError;
      } else if (result.kind === "response") {
        lastError = httpError(result, endpoint, this.settings.auth.kind);
        if (!retryableStatuses.has(result.status)) {
          if (result.status === 409 && outcomeUnknown && opts.reconcile !== undefined) {
            const found = await opts.reconcile();
            if (found !== undefined) return reconciledResponse(found);
          }
          throw lastError;
        }
        retryAfter = parseRetryAfter(result.headers["retry-after"], now());
        maybeSent = !notProcessedStatuses.has(result.status);
      } else {
        lastError = result.error;
        maybeSent = result.maybeSent;
      }

      if (!idempotent && maybeSent) {
        outcomeUnknown = true;
        if (opts.reconcile === undefined) throw outcomeUnknownError(endpoint, lastError, opts.unknownOutcomeAdvice);
        const found = await opts.reconcile();
        if (found !== undefined) return reconciledResponse(found);
        // The platform answered 2xx, so the request was processed; not finding its object means
        // the answer cannot be trusted either way, and repeating it could make a second one.
        if (lastError instanceof UnexpectedResponseError) {
          throw lastError.withDetails({
            hints: ["It was processed, but what it made was not found: check the dashboard."],
          });
        }
      }

      if (attempt + 1 >= this.policy.maxAttempts) break;
      const wait = retryAfter ?? backoffDelay(attempt, this.policy);
      if (now() - started + wait > this.policy.maxTotalMs) break;
      this.options.onRetry?.(`${endpoint}: ${lastError.code}; retrying in ${Math.round(wait / 100) / 10}s`);
      await sleep(wait);
    }
    throw (lastError as CloudPlatformError).withDetails({ attempts: attempt + 1, elapsedMs: now() - started });
  }

  /**
   * One attempt with the Authorization form this client uses for the request's base. The contract
   * (§2) sends the API key raw everywhere; a transcription API that wants `Bearer <api_key>`
   * refuses that (401, or 403), so the Bearer form is tried once and, if it is accepted, kept for
   * the rest of this client's life (§2.3). A refused request was not processed, so repeating even a
   * create is safe.
   */
  private async authorizedAttempt<T>(opts: RequestOptions<T>, endpoint: string): Promise<Attempt | Failure> {
    const base = opts.base ?? "management";
    const auth = this.settings.auth;
    const contract = auth.kind === "apiKey" ? auth.value : `Bearer ${auth.value}`;
    const bearer = base === "transcription" && auth.kind === "apiKey" ? `Bearer ${auth.value}` : undefined;
    if (bearer === undefined) return this.attempt(opts, endpoint, contract);
    if (this.bearerBases.has(base)) return this.attempt(opts, endpoint, bearer);
    const first = await this.attempt(opts, endpoint, contract);
    if (first.kind !== "response" || !refusedCredential(first.status)) return first;
    const second = await this.attempt(opts, endpoint, bearer);
    if (second.kind === "response" && !refusedCredential(second.status)) this.bearerBases.add(base);
    return second;
  }

  private async attempt<T>(
    opts: RequestOptions<T>,
    endpoint: string,
    authorization: string,
  ): Promise<Attempt | Failure> {
    const baseUrl = (opts.base ?? "management") === "management" ? this.settings.baseUrl : this.settings.apiUrl;
    const url = new URL(baseUrl + opts.path);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      accept: "application/json",
      authorization,
      "user-agent": this.options.userAgent ?? "pulumi-cloudplatform",
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
    const timeoutMs = opts.timeoutMs ?? this.options.defaultTimeoutMs ?? 30_000;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const dispatcher = this.options.dispatcher ?? poolFor(url.origin);
    try {
      const res = await dispatcher.request({
        origin: url.origin,
        path: url.pathname + url.search,
        method: opts.method,
        headers,
        body: body ?? null,
        signal: controller.signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const text = await res.body.text();
      return { kind: "response", status: res.statusCode, headers: res.headers, text };
    } catch (err) {
      if (controller.signal.aborted || isTimeoutCode(err)) {
        return {
          kind: "failure",
          maybeSent: true,
          error: new TimeoutError(
            `${endpoint} did not answer within ${timeoutMs} ms`,
            `Check that ${url.origin} is reachable.`,
            { endpoint, retryable: true },
          ),
        };
      }
      const code = errorCode(err);
      return {
        kind: "failure",
        maybeSent: !notSentCodes.has(code),
        error: new NetworkError(
          `${endpoint} failed: connection error ${code}`,
          `Check that ${url.origin} is reachable.`,
          {
            endpoint,
            retryable: true,
          },
        ),
      };
    } finally {
      clearTimeout(timer);
    }
  }
}

function isExpected(status: number, expected: number | readonly number[] | undefined): boolean {
  if (expected === undefined) return status >= 200 && status < 300;
  return typeof expected === "number" ? status === expected : expected.includes(status);
}

function isTimeoutCode(err: unknown): boolean {
  const code = errorCode(err);
  return code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT";
}

function errorCode(err: unknown): string {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return "UNKNOWN";
}

/** A refused credential: 401, and 403 on platforms that use it for that (contract §2.3). */
function refusedCredential(status: number): boolean {
  return status === 401 || status === 403;
}

/**
 * JSON, with integers past 2^53 kept as their digits (a 64-bit id would otherwise lose its last
 * digits and name another object). The third reviver argument is the JSON.parse source text
 * access of ES2025 (Node.js 22 and later).
 */
function parseJson(text: string): unknown {
  return JSON.parse(text, (_key: string, value: unknown, context?: { source?: string }) =>
    typeof value === "number" && !Number.isSafeInteger(value) && /^-?\d+$/.test(context?.source ?? "")
      ? context?.source
      : value,
  );
}

const schemas = new WeakMap<Reader<unknown>, z.ZodType<unknown>>();

/**
 * The zod schema of a reader, made on its first use: zod (~50 ms of CPU to load) is loaded with the
 * first answer read, not with the provider. A `ShapeProblem` becomes a custom issue.
 */
function schemaOf<T>(r: Reader<T>): z.ZodType<T> {
  let schema = schemas.get(r);
  if (schema === undefined) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded when first needed
    const { z } = require("zod") as typeof import("zod");
    schema = z.unknown().transform((raw, ctx) => {
      try {
        return r.read(raw);
      } catch (err) {
        if (!(err instanceof ShapeProblem)) throw err;
        ctx.addIssue({ code: "custom", message: err.message });
        return z.NEVER;
      }
    });
    schemas.set(r, schema);
  }
  return schema as z.ZodType<T>;
}

/**
 * A 2xx answer read with `schema`, or the reason it cannot be used: a body that is not JSON (a
 * proxy's page, a cut answer) or JSON of an unexpected shape, as an `UnexpectedResponseError`
 * naming the endpoint, the status and the keys received.
 */
function parseAnswer<T>(
  res: Attempt,
  schema: Reader<T> | undefined,
  endpoint: string,
): { ok: true; data: T } | { ok: false; error: UnexpectedResponseError; spoiled: boolean } {
  let json: unknown = undefined;
  if (res.text.trim() !== "") {
    try {
      json = parseJson(res.text);
    } catch {
      // A request that reads nothing back (a delete) takes any body, but an HTML page: that is a
      // proxy's, which says nothing of what the platform did (a failed delete may hide behind it).
      if (schema === undefined && !isHtml(res.headers["content-type"])) return { ok: true, data: undefined as T };
      return {
        ok: false,
        spoiled: true,
        error: new UnexpectedResponseError(endpoint, [], "the body is not JSON", res.status),
      };
    }
  }
  if (schema === undefined) return { ok: true, data: json as T };
  const parsed = schemaOf(schema).safeParse(json);
  if (parsed.success) return { ok: true, data: parsed.data };
  const problems = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? `${i.path.join(".")}: ` : ""}${i.code === "custom" ? i.message : i.code}`)
    .join("; ");
  return {
    ok: false,
    spoiled: false,
    error: new UnexpectedResponseError(endpoint, receivedKeys(json), problems, res.status),
  };
}

function isHtml(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType.join(",") : (contentType ?? "");
  return /text\/html/i.test(value);
}

/**
 * An idempotent request answered 2xx with a body that is not JSON (spoiled on the way: a proxy's
 * page, a cut answer) is repeated at most this many times.
 */
const maxUnreadableRepeats = 2;

function reconciledResponse<T>(data: T): ApiResponse<T> {
  return { status: 200, headers: {}, data, reconciled: true };
}

function outcomeUnknownError(endpoint: string, cause: CloudPlatformError, advice?: string): OutcomeUnknownError {
  const what =
    cause instanceof UnexpectedResponseError
      ? `was processed (${cause.status ?? "2xx"}) but its answer could not be read (received keys [${cause.receivedKeys.join(", ")}])`
      : `may have reached the server but no answer arrived (${cause.code})`;
  return new OutcomeUnknownError(
    `${endpoint} ${what}; it was not repeated because repeating it could create a duplicate`,
    advice ?? "Check the object in the dashboard, then run `pulumi up` again.",
    { endpoint, cause, ...(cause.status === undefined ? {} : { status: cause.status }) },
  );
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

function httpError(res: Attempt, endpoint: string, auth: Settings["auth"]["kind"]): HttpError {
  const { apiCode, message } = readErrorBody(res.text);
  const status = res.status;
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
