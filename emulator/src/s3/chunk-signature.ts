/**
 * The signature chain of STREAMING-AWS4-HMAC-SHA256-PAYLOAD(-TRAILER) bodies: every chunk is signed
 * over the previous signature, starting from the request's seed signature, and the trailer last.
 */
import { createHash, createHmac } from "node:crypto";
import { sameSecret } from "../constant-time.js";
import { S3Error } from "./errors.js";

const EMPTY_SHA256 = createHash("sha256").update("").digest("hex");

const mismatch = () =>
  new S3Error(
    403,
    "SignatureDoesNotMatch",
    "A chunk signature of the aws-chunked body does not match; check the signing key and the chunk encoder.",
  );

export class ChunkSignatureChain {
  private previous: string;

  constructor(
    private readonly key: Buffer,
    private readonly longDate: string,
    private readonly scope: string,
    seedSignature: string,
  ) {
    this.previous = seedSignature.toLowerCase();
  }

  /** Checks one chunk's signature given the SHA-256 (hex) of its data; advances the chain. */
  verifyChunk(dataSha256Hex: string, signature: string | undefined): void {
    const expected = this.sign(
      ["AWS4-HMAC-SHA256-PAYLOAD", this.longDate, this.scope, this.previous, EMPTY_SHA256, dataSha256Hex].join("\n"),
    );
    this.check(expected, signature);
  }

  /** Checks the trailer signature over the trailing headers, canonicalised as "name:value\n" each. */
  verifyTrailer(trailers: ReadonlyArray<readonly [string, string]>, signature: string | undefined): void {
    const canonical = trailers.map(([name, value]) => `${name}:${value}\n`).join("");
    const hash = createHash("sha256").update(canonical).digest("hex");
    const expected = this.sign(["AWS4-HMAC-SHA256-TRAILER", this.longDate, this.scope, this.previous, hash].join("\n"));
    this.check(expected, signature);
  }

  private sign(stringToSign: string): string {
    return createHmac("sha256", this.key).update(stringToSign).digest("hex");
  }

  private check(expected: string, signature: string | undefined): void {
    if (signature === undefined || !sameSecret(expected, signature.toLowerCase())) throw mismatch();
    this.previous = expected;
  }
}
