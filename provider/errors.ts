/**
 * Typed errors of the provider. Every error has a stable `code` callers can switch on, and a message
 * that says what failed and what to do. Messages never contain a secret: server text is redacted
 * (`redact.ts`) before it reaches an error, and request bodies are never included.
 */

// A process-wide symbol: `isInstance` must recognise errors thrown by another copy of this package
// (the program and the provider host may load different copies), where `instanceof` fails.
const marker = Symbol.for("pulumi-cloudplatform:error");

export type ErrorCode =
  | "CLOUDPLATFORM_CONFIG_MISSING"
  | "CLOUDPLATFORM_CONFIG_INVALID"
  | "CLOUDPLATFORM_BAD_REQUEST"
  | "CLOUDPLATFORM_UNAUTHORIZED"
  | "CLOUDPLATFORM_NOT_FOUND"
  | "CLOUDPLATFORM_CONFLICT"
  | "CLOUDPLATFORM_RATE_LIMITED"
  | `CLOUDPLATFORM_HTTP_${number}`
  | "CLOUDPLATFORM_UNEXPECTED_RESPONSE"
  | "CLOUDPLATFORM_TIMEOUT"
  | "CLOUDPLATFORM_NETWORK"
  | "CLOUDPLATFORM_OUTCOME_UNKNOWN"
  | "CLOUDPLATFORM_PARTIAL"
  | (string & {});

export interface ErrorDetails {
  /** HTTP status of the response, when there was one. */
  readonly status?: number;
  /** `METHOD /path` of the request, with ids but without query strings. */
  readonly endpoint?: string;
  /** The `error.code` the server sent (e.g. `name_taken`). */
  readonly apiCode?: string;
  /** Whether repeating the same request may succeed. */
  readonly retryable?: boolean;
  readonly cause?: unknown;
}

export class CloudPlatformError extends Error {
  readonly code: ErrorCode;
  readonly status: number | undefined;
  readonly endpoint: string | undefined;
  readonly apiCode: string | undefined;
  readonly retryable: boolean;
  /** The resource the message was prefixed with, so a host does not prefix it twice. */
  resource: string | undefined;
  readonly [marker] = true;

  constructor(code: ErrorCode, message: string, details: ErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = details.status;
    this.endpoint = details.endpoint;
    this.apiCode = details.apiCode;
    this.retryable = details.retryable ?? false;
    this.resource = undefined;
  }

  static isInstance(value: unknown): value is CloudPlatformError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  /** Prefixes the message with `<Type> "<name>": ` once; returns the same error. */
  forResource(type: string, name: string): this {
    if (this.resource === undefined) {
      this.resource = `${type} "${name}"`;
      this.message = `${this.resource}: ${this.message}`;
    }
    return this;
  }
}

/** A setting is missing: the message names the stack config key and the environment variable. */
export class ConfigMissingError extends CloudPlatformError {
  constructor(message: string) {
    super("CLOUDPLATFORM_CONFIG_MISSING", message);
  }
}

export class ConfigInvalidError extends CloudPlatformError {
  constructor(message: string) {
    super("CLOUDPLATFORM_CONFIG_INVALID", message);
  }
}

/** The API answered with an error status. Subclasses name the statuses callers handle. */
export class HttpError extends CloudPlatformError {}

export class BadRequestError extends HttpError {}
export class UnauthorizedError extends HttpError {}
export class NotFoundError extends HttpError {}
export class ConflictError extends HttpError {}
export class RateLimitedError extends HttpError {}

/** A response whose shape matches none of the variants of docs/api-contract.md. */
export class UnexpectedResponseError extends CloudPlatformError {
  /** Keys of the received object (never the values). */
  readonly receivedKeys: readonly string[];
  constructor(endpoint: string, receivedKeys: readonly string[], problem: string, status?: number) {
    super(
      "CLOUDPLATFORM_UNEXPECTED_RESPONSE",
      `${endpoint} answered with an unexpected shape: ${problem}; received keys [${receivedKeys.join(", ")}] ` +
        "(CLOUDPLATFORM_UNEXPECTED_RESPONSE). The API may have changed: upgrade pulumi-cloudplatform or report it.",
      { endpoint, ...(status === undefined ? {} : { status }) },
    );
    this.receivedKeys = receivedKeys;
  }
}

export class TimeoutError extends CloudPlatformError {}
export class NetworkError extends CloudPlatformError {}

/**
 * A non-idempotent request may have reached the server but no answer arrived, and the caller has no
 * way to find out what happened (e.g. a credential create): repeating it could create a duplicate.
 */
export class OutcomeUnknownError extends CloudPlatformError {}

/**
 * An operation created or changed an object but failed afterwards. The host records `id` and
 * `outs` as the resource's state (the engine's "partially created" state), so the next `up`
 * continues with an update instead of creating a duplicate.
 */
export class PartialCreateError extends CloudPlatformError {
  readonly id: string;
  readonly outs: object;
  readonly reasons: readonly string[];
  constructor(id: string, outs: object, cause: unknown, reasons?: readonly string[]) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      "CLOUDPLATFORM_PARTIAL",
      `${why} The object exists (id ${id}) and is kept in the state; run \`pulumi up\` again to finish.`,
      {
        cause,
      },
    );
    this.id = id;
    this.outs = outs;
    this.reasons = reasons ?? [why];
  }
}

/** True when `err` is one of our errors with the given code. */
export function hasCode(err: unknown, code: ErrorCode): boolean {
  return CloudPlatformError.isInstance(err) && err.code === code;
}

export function isNotFound(err: unknown): boolean {
  return hasCode(err, "CLOUDPLATFORM_NOT_FOUND");
}
