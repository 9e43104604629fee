/**
 * Decodes `Content-Encoding: aws-chunked` bodies as they stream:
 *   <hex size>[;chunk-signature=<sig>]\r\n<data>\r\n ... 0[;chunk-signature=<sig>]\r\n
 *   [<trailer name>:<value>\r\n ...][x-amz-trailer-signature:<sig>\r\n]\r\n
 * Only the payload goes downstream; data bytes are passed on as slices, never accumulated.
 */
import { createHash, type Hash } from "node:crypto";
import { Transform, type TransformCallback } from "node:stream";
import type { ChunkSignatureChain } from "./chunk-signature.js";
import { S3Error } from "./errors.js";

const MAX_LINE = 8 * 1024;

const incomplete = (detail: string) =>
  new S3Error(400, "IncompleteBody", `The aws-chunked body is malformed or truncated: ${detail}.`);

type State = "size-line" | "data" | "data-crlf" | "trailer-line" | "done";

export class AwsChunkedDecoder extends Transform {
  /** Trailing headers in the order received (lower-case names), without the trailer signature. */
  readonly trailers: Array<[string, string]> = [];
  private state: State = "size-line";
  private line = Buffer.alloc(0);
  private remaining = 0;
  private chunkSignature: string | undefined;
  private chunkHash: Hash | undefined;
  private trailerSignature: string | undefined;

  constructor(private readonly chain: ChunkSignatureChain | undefined) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    try {
      this.consume(chunk);
      callback();
    } catch (err) {
      callback(err as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    callback(this.state === "done" ? null : incomplete("the body ended before the final chunk and trailers"));
  }

  private consume(input: Buffer): void {
    let buf = input;
    while (buf.length > 0) {
      if (this.state === "data") {
        const take = Math.min(this.remaining, buf.length);
        const piece = buf.subarray(0, take);
        this.chunkHash?.update(piece);
        this.push(piece);
        this.remaining -= take;
        buf = buf.subarray(take);
        if (this.remaining === 0) this.state = "data-crlf";
        continue;
      }
      if (this.state === "done") {
        // Some encoders add a final CRLF; anything else is a framing error.
        if (buf.toString("latin1").trim() !== "") throw incomplete("bytes after the end of the trailers");
        return;
      }
      const lf = buf.indexOf(0x0a);
      if (lf < 0) {
        this.appendLine(buf);
        return;
      }
      this.appendLine(buf.subarray(0, lf + 1));
      buf = buf.subarray(lf + 1);
      const text = this.line.toString("latin1").replace(/\r?\n$/, "");
      this.line = Buffer.alloc(0);
      this.onLine(text);
    }
  }

  private appendLine(bytes: Buffer): void {
    if (this.line.length + bytes.length > MAX_LINE) throw incomplete("a chunk header or trailer line is too long");
    this.line = Buffer.concat([this.line, bytes]);
  }

  private onLine(text: string): void {
    switch (this.state) {
      case "data-crlf":
        if (text !== "") throw incomplete("a chunk is longer than its declared size");
        this.endChunk();
        this.state = "size-line";
        return;
      case "size-line":
        return this.onSizeLine(text);
      case "trailer-line":
        return this.onTrailerLine(text);
      default:
        throw incomplete("unexpected framing");
    }
  }

  private onSizeLine(text: string): void {
    const [sizeText = "", ...extensions] = text.split(";");
    if (!/^[0-9a-fA-F]{1,16}$/.test(sizeText.trim())) throw incomplete("a chunk size is not hexadecimal");
    this.remaining = parseInt(sizeText.trim(), 16);
    this.chunkSignature = extensions
      .map((e) => e.trim())
      .find((e) => e.startsWith("chunk-signature="))
      ?.slice("chunk-signature=".length);
    this.chunkHash = this.chain ? createHash("sha256") : undefined;
    if (this.remaining > 0) {
      this.state = "data";
      return;
    }
    this.endChunk();
    this.state = "trailer-line";
  }

  private endChunk(): void {
    if (this.chain) this.chain.verifyChunk(this.chunkHash!.digest("hex"), this.chunkSignature);
  }

  private onTrailerLine(text: string): void {
    if (text === "") {
      if (this.chain && (this.trailers.length > 0 || this.trailerSignature !== undefined)) {
        this.chain.verifyTrailer(this.trailers, this.trailerSignature);
      }
      this.state = "done";
      return;
    }
    const colon = text.indexOf(":");
    if (colon <= 0) throw incomplete("a trailer line has no name");
    const name = text.slice(0, colon).trim().toLowerCase();
    const value = text.slice(colon + 1).trim();
    if (name === "x-amz-trailer-signature") this.trailerSignature = value;
    else this.trailers.push([name, value]);
  }
}
