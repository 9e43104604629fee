/**
 * S3 refusals. Codes and statuses are the ones AWS S3 uses, because real clients (SDKs, awscli,
 * s3cmd, rclone) switch on them. Messages say what to do and never carry a secret.
 */
export class S3Error extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra XML elements AWS adds to some errors (e.g. Region, Key). */
    readonly details: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "S3Error";
  }
}

export const accessDenied = (message = "Access Denied: this credential can reach only its own bucket.") =>
  new S3Error(403, "AccessDenied", message);

export const noSuchKey = (key: string) =>
  new S3Error(404, "NoSuchKey", "The specified key does not exist.", { Key: key });

export const noSuchUpload = (uploadId: string) =>
  new S3Error(
    404,
    "NoSuchUpload",
    "The specified multipart upload does not exist: it may have been aborted or completed.",
    { UploadId: uploadId },
  );

export const invalidArgument = (message: string) => new S3Error(400, "InvalidArgument", message);

export const malformedXml = (detail: string) =>
  new S3Error(
    400,
    "MalformedXML",
    `The XML you provided was not well-formed or did not validate against the S3 schema: ${detail}`,
  );
