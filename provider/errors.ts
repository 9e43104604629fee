/**
 * The provider's closed error vocabulary. Every error is a class that carries one stable `code`
 * (the list below, also in docs/api-contract.md §2.2, which a unit test keeps equal), and every
 * message has one shape, rendered in one place (`render`) from the error's parts when it is made:
 * `<Type> "<name>": <what failed> (<code>). <what to do> <hints> <gave up after …>`. An error is not
 * changed afterwards: saying more about it (a hint, the resource, the attempts of a request given
 * up) makes a new one (`withDetails`). Messages never contain a secret: every text is redacted
 * (`redact.ts`) when rendered, and request bodies are never included.
 */
import { redact } from "./redact.js";

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

/** The stable code of an error (`err.code`), one of docs/api-contract.md §2.2: what a caller switches on. */
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
  /**
   * What else to do, said after `todo` by the code that knows more of the situation than the one
   * that made the error (a bucket's core knows that bucket names are unique on the platform).
   */
  readonly hints?: readonly string[];
  /** Set when the client gave up repeating a request that may pass later: the attempts it made. */
  readonly attempts?: number;
  /** With `attempts`: the time they took, waits included, in milliseconds. */
  readonly elapsedMs?: number;
  /** `<Type> "<name>"` of the resource the error is about; the message starts with it. */
  readonly resource?: string;
}

/** What can be said of an error after it was made, by making a new one (`withDetails`). */
export type MoreDetails = Pick<ErrorDetails, "hints" | "attempts" | "elapsedMs" | "resource">;

/** `<Type> "<name>"`: how messages and log lines name a resource. */
export function resourceLabel(type: string, name: string): string {
  return `${type} "${name}"`;
}

/** `text` prefixed with the resource's label, or as it is when the resource has no name. */
export function aboutResource(type: string, name: string, text: string): string {
  return name === "" ? text : `${resourceLabel(type, name)}: ${text}`;
}

/**
 * The message of an error, from its parts: the one place where messages are written. Every part is
 * redacted here, with the secrets known when the error is made (`forResource` makes it again, with
 * those known by then).
 */
function render(code: ErrorCode, what: string, todo: string, details: ErrorDetails): string {
  const advice = [todo, ...(details.hints ?? []), gaveUp(details)].filter((part) => part !== "");
  const text = `${what.replace(/\.$/, "")} (${code}).${advice.map((part) => ` ${part}`).join("")}`;
  return redact(details.resource === undefined ? text : `${details.resource}: ${text}`);
}

function gaveUp({ attempts, elapsedMs }: ErrorDetails): string {
  if (attempts === undefined) return "";
  const seconds = Math.round((elapsedMs ?? 0) / 1000);
  return `Gave up after ${attempts} attempt${attempts === 1 ? "" : "s"} in ${seconds}s; try again later.`;
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
  /** What failed, as the message says it. */
  readonly what: string;
  /** What to do about it, as the message says it after the code. */
  readonly todo: string;
  readonly hints: readonly string[];
  readonly attempts: number | undefined;
  readonly elapsedMs: number | undefined;
  /** The resource the message starts with, so that a host does not name it twice. */
  readonly resource: string | undefined;
  readonly [marker] = true;

  /**
   * `what` says what failed, `todo` what to do about it; the code goes between them.
   *
   * @internal The provider makes its errors; programs read them.
   */
  constructor(what: string, todo = "", details: ErrorDetails = {}) {
    const code = (new.target as typeof CloudPlatformError).code ?? `CLOUDPLATFORM_HTTP_${details.status ?? 0}`;
    super(render(code, what, todo, details), details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = details.status;
    this.endpoint = details.endpoint;
    this.apiCode = details.apiCode;
    this.retryable = details.retryable ?? false;
    // Kept redacted too: an error's fields are as visible as its message (JSON.stringify, a log).
    this.what = redact(what);
    this.todo = redact(todo);
    this.hints = (details.hints ?? []).map(redact);
    this.attempts = details.attempts;
    this.elapsedMs = details.elapsedMs;
    this.resource = details.resource;
  }

  static isInstance(value: unknown): value is CloudPlatformError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }

  /**
   * A new error of the same class that says more: `more`'s hints after this one's, its other details
   * in place of this one's. It is made by the base constructor with this error's class as its
   * `new.target`, so that its message is rendered the one way whatever the subclass's constructor
   * takes; a subclass's own fields (an unexpected answer's keys, a partial state's id) are kept.
   *
   * @internal
   */
  withDetails(more: MoreDetails): this {
    const details: ErrorDetails = {
      status: this.status,
      endpoint: this.endpoint,
      apiCode: this.apiCode,
      retryable: this.retryable,
      cause: this.cause,
      attempts: this.attempts,
      elapsedMs: this.elapsedMs,
      resource: this.resource,
      ...more,
      hints: [...this.hints, ...(more.hints ?? [])],
    };
    const made = Reflect.construct(CloudPlatformError, [this.what, this.todo, details], this.constructor) as this;
    for (const [key, value] of Object.entries(this))
      if (!Object.hasOwn(made, key)) Object.assign(made, { [key]: value });
    return made;
  }

  /**
   * This error about the resource `<Type> "<name>"` (named once), made again with the secrets known now.
   *
   * @internal
   */
  forResource(type: string, name: string): this {
    return this.withDetails({ resource: this.resource ?? (name === "" ? undefined : resourceLabel(type, name)) });
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

/**
 * `err` with `hint` after what it says to do, when it is one of ours with `code`; any other error
 * as it is. For a caller that knows more of the situation than the code that made the error.
 */
export function withHint(err: unknown, code: ErrorCode, hint: string): unknown {
  return CloudPlatformError.isInstance(err) && err.code === code ? err.withDetails({ hints: [hint] }) : err;
}
