/**
 * The provider's closed error vocabulary. Every error is a class that carries one stable `code`
 * (the list below, also in docs/api-contract.md §2.2, which a unit test keeps equal), and every
 * message has one shape, built here: `<what failed> (<code>). <what to do>`. Messages never contain
 * a secret: server text is redacted (`redact.ts`) before it reaches an error, and request bodies are
 * never included.
 */

// A process-wide symbol: `isInstance` must recognise errors thrown by another copy of this package
// (the program and the provider host may load different copies), where `instanceof` fails.
const marker = Symbol.for("pulumi-cloudplatform:error");

/** Every code, in the order of docs/api-contract.md §2.2; `<status>` stands for any HTTP status. */
export const errorCodes = [
  "CLOUDPLATFORM_CONFIG_MISSING",
  "CLOUDPLATFORM_CONFIG_INVALID",
  "CLOUDPLATFORM_BAD_REQUEST",
  "CLOUDPLATFORM_UNAUTHORIZED",
  "CLOUDPLATFORM_NOT_FOUND",
  "CLOUDPLATFORM_CONFLICT",
  "CLOUDPLATFORM_RATE_LIMITED",
  "CLOUDPLATFORM_HTTP_<status>",
  "CLOUDPLATFORM_UNEXPECTED_RESPONSE",
  "CLOUDPLATFORM_TIMEOUT",
  "CLOUDPLATFORM_NETWORK",
  "CLOUDPLATFORM_OUTCOME_UNKNOWN",
  "CLOUDPLATFORM_PARTIAL",
  "CLOUDPLATFORM_UNKNOWN_TYPE",
  "CLOUDPLATFORM_IMPORT_UNSUPPORTED",
  "CLOUDPLATFORM_IMPORT_ID_INVALID",
  "CLOUDPLATFORM_SOURCE_MISSING",
  "CLOUDPLATFORM_UPLOAD_FAILED",
  "CLOUDPLATFORM_TRANSCRIPT_FAILED",
  "CLOUDPLATFORM_TRANSCRIPT_DEADLINE",
  "CLOUDPLATFORM_S3_FAILED",
  "CLOUDPLATFORM_NODE_UNSUPPORTED",
] as const;

export type ErrorCode =
  Exclude<(typeof errorCodes)[number], "CLOUDPLATFORM_HTTP_<status>"> | `CLOUDPLATFORM_HTTP_${number}`;

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

/** `<Type> "<name>"`: how messages and log lines name a resource. */
export function resourceLabel(type: string, name: string): string {
  return `${type} "${name}"`;
}

/** `text` prefixed with the resource's label, or as it is when the resource has no name. */
export function aboutResource(type: string, name: string, text: string): string {
  return name === "" ? text : `${resourceLabel(type, name)}: ${text}`;
}

/**
 * The base of every error. A subclass names its code in `static code`; the base itself (and
 * `HttpError`) answers an HTTP status without a class of its own with `CLOUDPLATFORM_HTTP_<status>`.
 */
export abstract class CloudPlatformError extends Error {
  static readonly code: ErrorCode | undefined = undefined;
  readonly code: ErrorCode;
  readonly status: number | undefined;
  readonly endpoint: string | undefined;
  readonly apiCode: string | undefined;
  readonly retryable: boolean;
  /** The resource the message was prefixed with, so a host does not prefix it twice. */
  resource: string | undefined;
  readonly [marker] = true;

  /** `what` says what failed, `todo` what to do about it; the code goes between them. */
  constructor(what: string, todo = "", details: ErrorDetails = {}) {
    const code = (new.target as typeof CloudPlatformError).code ?? `CLOUDPLATFORM_HTTP_${details.status ?? 0}`;
    super(
      `${what.replace(/\.$/, "")} (${code}).${todo === "" ? "" : ` ${todo}`}`,
      details.cause === undefined ? undefined : { cause: details.cause },
    );
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
    if (this.resource === undefined && name !== "") {
      this.resource = resourceLabel(type, name);
      this.message = `${this.resource}: ${this.message}`;
    }
    return this;
  }
}

/** A setting is missing: the message names the stack config key and the environment variable. */
export class ConfigMissingError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_CONFIG_MISSING";
}

export class ConfigInvalidError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_CONFIG_INVALID";
}

/** The API answered with an error status. Subclasses name the statuses callers handle. */
export class HttpError extends CloudPlatformError {}

/** 400 or 422. */
export class BadRequestError extends HttpError {
  static override readonly code = "CLOUDPLATFORM_BAD_REQUEST";
}

/** 401 or 403. */
export class UnauthorizedError extends HttpError {
  static override readonly code = "CLOUDPLATFORM_UNAUTHORIZED";
}

/** 404, or a lookup that found nothing. */
export class NotFoundError extends HttpError {
  static override readonly code = "CLOUDPLATFORM_NOT_FOUND";
}

/** 409, or a name taken by an object this stack cannot adopt. */
export class ConflictError extends HttpError {
  static override readonly code = "CLOUDPLATFORM_CONFLICT";
}

export class RateLimitedError extends HttpError {
  static override readonly code = "CLOUDPLATFORM_RATE_LIMITED";
}

/**
 * A `2xx` answer the provider cannot use: not JSON, or without what the operation needs (contract
 * §2.3). The platform processed the request; only its answer is unusable, which §2.4 treats like
 * a lost answer. `status` and `endpoint` say which answer.
 */
export class UnexpectedResponseError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_UNEXPECTED_RESPONSE";
  /** Keys of the received object (never the values). */
  readonly receivedKeys: readonly string[];
  constructor(endpoint: string, receivedKeys: readonly string[], problem: string, status?: number) {
    super(
      `${endpoint} answered with an unexpected shape: ${problem}; received keys [${receivedKeys.join(", ")}]`,
      "The API may have changed: upgrade pulumi-cloudplatform or report it.",
      { endpoint, ...(status === undefined ? {} : { status }) },
    );
    this.receivedKeys = receivedKeys;
  }
}

export class TimeoutError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_TIMEOUT";
}

export class NetworkError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_NETWORK";
}

/**
 * A non-idempotent request may have reached the server but no answer arrived, and the caller has no
 * way to find out what happened (e.g. a credential create): repeating it could create a duplicate.
 */
export class OutcomeUnknownError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_OUTCOME_UNKNOWN";
}

/**
 * An operation created or changed an object but failed afterwards. The host records `id` and
 * `outs` as the resource's state (the engine's "partially created" state), so the next `up`
 * continues with an update instead of creating a duplicate.
 */
export class PartialCreateError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_PARTIAL";
  readonly id: string;
  readonly outs: object;
  readonly reasons: readonly string[];
  constructor(id: string, outs: object, cause: unknown, reasons?: readonly string[]) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(why, `The object exists (id ${id}) and is kept in the state; run \`pulumi up\` again to finish.`, { cause });
    this.id = id;
    this.outs = outs;
    this.reasons = reasons ?? [why];
  }
}

/** The executable provider was asked for a type token it does not serve. */
export class UnknownTypeError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_UNKNOWN_TYPE";
}

/** `pulumi import` of a resource whose core refuses it (`ResourceCore.importing`). */
export class ImportUnsupportedError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_IMPORT_UNSUPPORTED";
}

/** An import id of the wrong shape; the message shows the expected one. */
export class ImportIdInvalidError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_IMPORT_ID_INVALID";
}

/** A Transcript's local file disappeared between preview and create. */
export class SourceMissingError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_SOURCE_MISSING";
}

/**
 * An S3 request of a BucketObject or a SyncedFolder failed for good (retries spent, or refused):
 * the message names the operation, the key and S3's code, never the credential's secret.
 */
export class S3RequestError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_S3_FAILED";
}

/** The PUT of a Transcript's file to its upload address failed for good; the message never holds that address. */
export class TranscriptUploadError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_UPLOAD_FAILED";
}

/** A transcription job ended in `error` (spec §2, §7). `jobCode` is the platform's code, e.g. `insufficient_balance`. */
export class TranscriptFailedError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_TRANSCRIPT_FAILED";
  readonly transcriptId: string;
  readonly jobCode: string | undefined;
  readonly jobMessage: string;
  constructor(transcriptId: string, jobCode: string | undefined, jobMessage = "the job failed without a message") {
    super(
      `transcription job ${transcriptId} failed: ${jobCode ? `${jobCode}: ` : ""}${jobMessage}`,
      jobCode === "insufficient_balance"
        ? "Nothing was charged. Add funds or enable auto-recharge (trial credit does not pay for transcription), " +
            "then run `pulumi up` again."
        : "Nothing was charged. Check the media (format, length up to 6 hours) and run `pulumi up` again to start a new job.",
      jobCode === undefined ? {} : { apiCode: jobCode },
    );
    this.transcriptId = transcriptId;
    this.jobCode = jobCode;
    this.jobMessage = jobMessage;
  }
}

/** The deadline (`timeoutMinutes`) passed while the job was still queued or processing. */
export class TranscriptDeadlineError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_TRANSCRIPT_DEADLINE";
  constructor(transcriptId: string, status: string, minutes: number) {
    super(
      `transcription job ${transcriptId} is still ${status} after the deadline of ${minutes} minute(s)`,
      "The job keeps running on the platform and no new job will be paid for. Raise `timeoutMinutes` if needed.",
    );
  }
}

/**
 * The Node.js running the plugin executable is older than the provider supports. The launcher
 * (plugin/launcher.ts) writes this message itself, loading nothing before its version check; a unit
 * test keeps its text equal to this class's.
 */
export class NodeUnsupportedError extends CloudPlatformError {
  static override readonly code = "CLOUDPLATFORM_NODE_UNSUPPORTED";
}

/** True when `err` is one of our errors with the given code. */
export function hasCode(err: unknown, code: ErrorCode): boolean {
  return CloudPlatformError.isInstance(err) && err.code === code;
}

export function isNotFound(err: unknown): boolean {
  return hasCode(err, "CLOUDPLATFORM_NOT_FOUND");
}
