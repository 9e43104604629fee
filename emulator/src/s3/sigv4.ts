/**
 * AWS Signature V4 verification by re-signing: the request is rebuilt from what the client says it
 * signed and signed again with @smithy/signature-v4 and the secret from the management state; the
 * two signatures are compared in constant time. Header auth and presigned query auth both land here.
 */
import { createHmac } from "node:crypto";
import type { IncomingMessage } from "node:http";
import { Hash } from "@smithy/hash-node";
import { HttpRequest } from "@smithy/protocol-http";
import { SignatureV4 } from "@smithy/signature-v4";
import { isManagementCredential } from "../auth.js";
import type { CredentialDirectory } from "../interfaces.js";
import { ChunkSignatureChain } from "./chunk-signature.js";
import { sameSecret } from "../constant-time.js";
import { S3Error } from "./errors.js";
import type { RequestTarget } from "./target.js";

export const REGION = "us-east-1";
const ALGORITHM = "AWS4-HMAC-SHA256";
const MAX_SKEW_MS = 15 * 60 * 1000;
const MAX_PRESIGNED_SECONDS = 7 * 24 * 3600;

/** How the body is protected, from x-amz-content-sha256. */
export type PayloadProtection =
  | { readonly kind: "sha256"; readonly expectedHex: string }
  | { readonly kind: "unsigned" }
  | { readonly kind: "chunked-unsigned" }
  | { readonly kind: "chunked-signed"; readonly chain: ChunkSignatureChain };

export interface Authenticated {
  readonly accessKeyId: string;
  /** The only bucket this credential reaches. */
  readonly bucketName: string;
  readonly payload: PayloadProtection;
}

interface ParsedAuth {
  readonly presigned: boolean;
  readonly accessKeyId: string;
  readonly scopeDate: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
  readonly longDate: string;
  readonly expiresSeconds?: number;
}

const malformedHeader = (message: string, details: Record<string, string> = {}) =>
  new S3Error(400, "AuthorizationHeaderMalformed", message, details);
const malformedQuery = (message: string) => new S3Error(400, "AuthorizationQueryParametersError", message);

function parseCredential(value: string, malformed: (m: string) => S3Error) {
  const parts = value.split("/");
  if (parts.length !== 5 || parts[4] !== "aws4_request" || !parts[0]) {
    throw malformed("The Credential must be <access key id>/<yyyymmdd>/us-east-1/s3/aws4_request.");
  }
  const [accessKeyId, scopeDate, region, service] = parts as [string, string, string, string];
  return { accessKeyId, scopeDate, region, service };
}

function parseHeaderAuth(authorization: string, headers: IncomingMessage["headers"]): ParsedAuth {
  const fields = new Map<string, string>();
  for (const part of authorization.slice(ALGORITHM.length).split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const credential = fields.get("Credential");
  const signedHeaders = fields.get("SignedHeaders");
  const signature = fields.get("Signature");
  if (!credential || !signedHeaders || !signature) {
    throw malformedHeader("The Authorization header needs Credential, SignedHeaders and Signature.");
  }
  const longDate = headerValue(headers, "x-amz-date");
  if (!longDate) {
    throw new S3Error(403, "AccessDenied", "AWS authentication requires a signed x-amz-date header.");
  }
  return {
    presigned: false,
    ...parseCredential(credential, malformedHeader),
    signedHeaders: signedHeaders.split(";"),
    signature,
    longDate,
  };
}

function parsePresigned(query: URLSearchParamsLike): ParsedAuth {
  const algorithm = query.get("X-Amz-Algorithm");
  if (algorithm !== ALGORITHM) throw malformedQuery(`X-Amz-Algorithm must be ${ALGORITHM}.`);
  const credential = query.get("X-Amz-Credential");
  const signedHeaders = query.get("X-Amz-SignedHeaders");
  const signature = query.get("X-Amz-Signature");
  const longDate = query.get("X-Amz-Date");
  const expires = query.get("X-Amz-Expires");
  if (!credential || !signedHeaders || !signature || !longDate || !expires) {
    throw malformedQuery(
      "Presigned URLs need X-Amz-Credential, X-Amz-Date, X-Amz-Expires, X-Amz-SignedHeaders and X-Amz-Signature.",
    );
  }
  const expiresSeconds = Number(expires);
  if (!/^\d+$/.test(expires) || expiresSeconds < 1 || expiresSeconds > MAX_PRESIGNED_SECONDS) {
    throw malformedQuery("X-Amz-Expires must be a number of seconds between 1 and 604800 (one week).");
  }
  return {
    presigned: true,
    ...parseCredential(credential, malformedQuery),
    signedHeaders: signedHeaders.split(";"),
    signature,
    longDate,
    expiresSeconds,
  };
}

interface URLSearchParamsLike {
  get(name: string): string | undefined;
}

function headerValue(headers: IncomingMessage["headers"], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

function parseLongDate(longDate: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(longDate);
  if (!m) throw new S3Error(403, "AccessDenied", "X-Amz-Date must have the form yyyymmddThhmmssZ.");
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
}

/** S3's canonical URI: every segment decoded, then encoded per RFC 3986 (what AWS itself does). */
function canonicalPath(rawPath: string): string {
  return rawPath
    .split("/")
    .map((segment) => {
      let decoded: string;
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        decoded = segment;
      }
      return encodeURIComponent(decoded).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    })
    .join("/");
}

function payloadProtection(value: string | undefined, parsed: ParsedAuth, secretAccessKey: string): PayloadProtection {
  if (parsed.presigned) {
    // Presigned URLs never sign the body; a hex hash the client adds is still checked.
    return value && /^[0-9a-f]{64}$/i.test(value)
      ? { kind: "sha256", expectedHex: value.toLowerCase() }
      : { kind: "unsigned" };
  }
  if (value === undefined) {
    throw new S3Error(400, "InvalidRequest", "Missing required header for this request: x-amz-content-sha256.");
  }
  if (/^[0-9a-f]{64}$/i.test(value)) return { kind: "sha256", expectedHex: value.toLowerCase() };
  switch (value) {
    case "UNSIGNED-PAYLOAD":
      return { kind: "unsigned" };
    case "STREAMING-UNSIGNED-PAYLOAD-TRAILER":
      return { kind: "chunked-unsigned" };
    case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD":
    case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER":
      return {
        kind: "chunked-signed",
        chain: new ChunkSignatureChain(
          signingKey(secretAccessKey, parsed.scopeDate),
          parsed.longDate,
          `${parsed.scopeDate}/${REGION}/s3/aws4_request`,
          parsed.signature,
        ),
      };
    default:
      throw invalidContentSha(value);
  }
}

const invalidContentSha = (value: string) =>
  new S3Error(
    400,
    "InvalidArgument",
    `x-amz-content-sha256 must be a hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* value, not "${value.slice(0, 80)}".`,
  );

/** The SigV4 signing key (needed here only for aws-chunked chunk signatures). */
function signingKey(secret: string, scopeDate: string): Buffer {
  let key: Buffer = Buffer.from(`AWS4${secret}`, "utf8");
  for (const part of [scopeDate, REGION, "s3", "aws4_request"]) key = createHmac("sha256", key).update(part).digest();
  return key;
}

/** Verifies the request's signature; throws the S3Error AWS would answer with. */
export async function authenticate(
  req: IncomingMessage,
  target: RequestTarget,
  credentials: CredentialDirectory,
  now: Date = new Date(),
): Promise<Authenticated> {
  const authorization = headerValue(req.headers, "authorization");
  let parsed: ParsedAuth;
  if (target.query.get("X-Amz-Algorithm") !== undefined) {
    parsed = parsePresigned(target.query);
  } else if (authorization?.startsWith(`${ALGORITHM} `)) {
    parsed = parseHeaderAuth(authorization, req.headers);
  } else if (authorization && isManagementCredential(authorization)) {
    // S3 clients treat 403 as "these credentials are refused", which is what this is (spec §5).
    throw new S3Error(
      403,
      "AccessDenied",
      "The S3 plane takes only the access key pair of a bucket (access_key_id and secret_access_key, AWS Signature " +
        "Version 4), not the project API key or a JWT: create a credential of the bucket and sign with it.",
    );
  } else if (authorization) {
    throw new S3Error(400, "InvalidRequest", "Only AWS Signature Version 4 (AWS4-HMAC-SHA256) is supported.");
  } else {
    throw new S3Error(
      403,
      "AccessDenied",
      "Anonymous access is not allowed: sign requests with an S3 credential of the bucket.",
    );
  }

  if (parsed.region !== REGION) {
    throw malformedHeader(`The authorization region '${parsed.region}' is wrong; expecting '${REGION}'.`, {
      Region: REGION,
    });
  }
  if (parsed.service !== "s3")
    throw malformedHeader(`The credential scope service must be 's3', not '${parsed.service}'.`);

  const credential = credentials.lookup(parsed.accessKeyId);
  if (!credential || !credential.active) {
    throw new S3Error(
      403,
      "InvalidAccessKeyId",
      "The access key id you provided does not exist or is deactivated; create or activate a credential of the bucket.",
    );
  }

  const signingDate = parseLongDate(parsed.longDate);
  if (parsed.longDate.slice(0, 8) !== parsed.scopeDate) {
    throw malformedHeader("The credential scope date must be the date of X-Amz-Date.");
  }
  const skew = now.getTime() - signingDate.getTime();
  if (parsed.presigned) {
    if (skew > parsed.expiresSeconds! * 1000)
      throw new S3Error(403, "AccessDenied", "Request has expired: presign a new URL.");
    if (-skew > MAX_SKEW_MS)
      throw new S3Error(403, "AccessDenied", "Request is not valid yet: X-Amz-Date is in the future.");
  } else if (Math.abs(skew) > MAX_SKEW_MS) {
    throw new S3Error(
      403,
      "RequestTimeTooSkewed",
      "The difference between the request time and the server's time is more than 15 minutes; fix the client clock.",
    );
  }

  const signed = new Set(parsed.signedHeaders.map((h) => h.toLowerCase()));
  if (!signed.has("host")) throw new S3Error(403, "AccessDenied", "The host header must be signed.");
  const headers: Record<string, string> = {};
  for (const name of signed) {
    const value = headerValue(req.headers, name);
    if (value === undefined) throw new S3Error(403, "SignatureDoesNotMatch", `The signed header '${name}' is missing.`);
    headers[name] = value;
  }

  const contentSha = headerValue(req.headers, "x-amz-content-sha256");
  const payload = payloadProtection(contentSha, parsed, credential.secretAccessKey);
  const input: SigningInput = {
    target,
    headers,
    signed,
    parsed,
    signingDate,
    secretAccessKey: credential.secretAccessKey,
  };
  const expected = await (parsed.presigned ? presignedSignature(input) : headerSignature(input));
  if (!sameSecret(expected, parsed.signature.toLowerCase())) {
    throw new S3Error(
      403,
      "SignatureDoesNotMatch",
      "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
    );
  }
  return { accessKeyId: parsed.accessKeyId, bucketName: credential.bucketName, payload };
}

/** What the signature is computed again from: the request as the client says it signed it. */
interface SigningInput {
  readonly target: RequestTarget;
  /** The signed headers' values, by lower-case name. */
  readonly headers: Record<string, string>;
  readonly signed: ReadonlySet<string>;
  readonly parsed: ParsedAuth;
  readonly signingDate: Date;
  readonly secretAccessKey: string;
}

function signer(input: SigningInput): SignatureV4 {
  return new SignatureV4({
    credentials: { accessKeyId: input.parsed.accessKeyId, secretAccessKey: input.secretAccessKey },
    region: REGION,
    service: "s3",
    sha256: Hash.bind(null, "sha256"),
    uriEscapePath: false,
    applyChecksum: false,
  });
}

function baseRequest(target: RequestTarget, headers: Record<string, string>, query: Record<string, string | string[]>) {
  return new HttpRequest({
    method: target.method,
    protocol: "http:",
    hostname: headers["host"] ?? "localhost",
    path: canonicalPath(target.rawPath),
    query,
    headers,
  });
}

async function headerSignature(input: SigningInput): Promise<string> {
  const request = baseRequest(input.target, input.headers, input.target.query.toRecord());
  const result = await signer(input).sign(request, {
    signingDate: input.signingDate,
    signableHeaders: new Set(input.signed),
  });
  const auth = String(result.headers["authorization"] ?? "");
  return auth.slice(auth.lastIndexOf("Signature=") + "Signature=".length);
}

const PRESIGN_PARAMS = new Set([
  "X-Amz-Algorithm",
  "X-Amz-Credential",
  "X-Amz-Date",
  "X-Amz-Expires",
  "X-Amz-SignedHeaders",
  "X-Amz-Signature",
]);

async function presignedSignature(input: SigningInput): Promise<string> {
  const { target, headers, signed } = input;
  const query = Object.fromEntries(Object.entries(target.query.toRecord()).filter(([k]) => !PRESIGN_PARAMS.has(k)));
  // The payload hash of a presigned URL is UNSIGNED-PAYLOAD unless the client signed one.
  const payloadHash = headers["x-amz-content-sha256"] ?? target.query.get("X-Amz-Content-Sha256") ?? "UNSIGNED-PAYLOAD";
  const request = baseRequest(target, { ...headers, "x-amz-content-sha256": payloadHash }, query);
  const names = new Set(Object.keys(request.headers));
  const result = await signer(input).presign(request, {
    signingDate: input.signingDate,
    expiresIn: input.parsed.expiresSeconds!,
    signableHeaders: new Set(signed),
    unsignableHeaders: signed.has("x-amz-content-sha256") ? new Set() : new Set(["x-amz-content-sha256"]),
    unhoistableHeaders: names,
  });
  return String(result.query?.["X-Amz-Signature"] ?? "");
}
