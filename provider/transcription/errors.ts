import { CloudPlatformError } from "../errors.js";

/**
 * Errors proper to transcripts. They extend the provider's CloudPlatformError so hosts and users
 * switch on `code` the same way as for every other resource.
 */

/** The job ended in `error` (spec §2, §7). `jobCode` is the platform's code, e.g. `insufficient_balance`. */
export class TranscriptFailedError extends CloudPlatformError {
  readonly transcriptId: string;
  readonly jobCode: string | undefined;
  readonly jobMessage: string;
  constructor(transcriptId: string, jobCode: string | undefined, jobMessage: string) {
    super("CLOUDPLATFORM_TRANSCRIPT_FAILED", failureMessage(transcriptId, jobCode, jobMessage), {
      ...(jobCode === undefined ? {} : { apiCode: jobCode }),
    });
    this.transcriptId = transcriptId;
    this.jobCode = jobCode;
    this.jobMessage = jobMessage;
  }
}

function failureMessage(id: string, jobCode: string | undefined, jobMessage: string): string {
  const what = `transcription job ${id} failed: ${jobCode ? `${jobCode}: ` : ""}${jobMessage}`;
  if (jobCode === "insufficient_balance") {
    return (
      `${what} (CLOUDPLATFORM_TRANSCRIPT_FAILED). Nothing was charged. Add funds or enable auto-recharge ` +
      "(trial credit does not pay for transcription), then run `pulumi up` again."
    );
  }
  return (
    `${what} (CLOUDPLATFORM_TRANSCRIPT_FAILED). Nothing was charged. Check the media (format, length up to ` +
    "6 hours) and run `pulumi up` again to start a new job."
  );
}

/** The deadline (`timeoutMinutes`) passed while the job was still queued or processing. */
export class TranscriptDeadlineError extends CloudPlatformError {
  constructor(transcriptId: string, status: string, minutes: number) {
    super(
      "CLOUDPLATFORM_TRANSCRIPT_DEADLINE",
      `transcription job ${transcriptId} is still ${status} after the deadline of ${minutes} minute(s) ` +
        "(CLOUDPLATFORM_TRANSCRIPT_DEADLINE); the job keeps running on the platform and no new job will be paid for. " +
        "Raise `timeoutMinutes` if needed.",
    );
  }
}

/** The PUT of the file to its upload address failed for good; the message never holds that address. */
export class TranscriptUploadError extends CloudPlatformError {
  constructor(message: string, status: number | undefined, retryable: boolean) {
    super("CLOUDPLATFORM_UPLOAD_FAILED", message, {
      endpoint: "PUT uploadUrl",
      retryable,
      ...(status === undefined ? {} : { status }),
    });
  }
}
