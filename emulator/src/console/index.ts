/**
 * The console: a web page on the emulator's own port (GET /_emulator/console) that shows what the
 * platform holds, the last requests and the faults, and changes the faults. Plain HTML, CSS and
 * JavaScript served from static/ (no build step); the page reads the GET endpoints below and
 * changes things through PUT /_emulator/faults and POST /_emulator/reset (docs/api-contract.md §9).
 * Nothing it answers holds a secret: every object is built here field by field.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { ApiError } from "../api-error.js";
import type { FaultInjector } from "../faults.js";
import type { RateLimiter } from "../rate-limit.js";
import { sendJson } from "../http-io.js";
import type { ObjectListing, TranscriptionService } from "../interfaces.js";
import type { ShapeName } from "../shapes/index.js";
import type { StateStore } from "../state.js";
import type { Stats } from "../stats.js";
import { CONSOLE_PAGE } from "./guard.js";
import type { RequestLog } from "./request-log.js";

/**
 * The page's files. The build (tsc) does not copy them, so both this source (tests) and its
 * compiled form in dist/console/ find them in the package's src/console/static/.
 */
export const STATIC_DIR = join(__dirname, "..", "..", "src", "console", "static");

const STATIC_TYPES: Readonly<Record<string, string>> = {
  "console.css": "text/css; charset=utf-8",
  "console.js": "text/javascript; charset=utf-8",
  "icon.svg": "image/svg+xml",
};

/** Objects listed for one bucket at most. */
const LISTED_OBJECTS = 1000;

/** Where the page may load from and connect to: its own origin only, no inline script or style. */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers of every console answer: not framed, not loaded by other origins, not cached, not sniffed. */
const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "same-origin",
  "cross-origin-opener-policy": "same-origin",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

export interface ConsoleDeps {
  readonly state: StateStore;
  readonly stats: Stats;
  readonly faults: FaultInjector;
  readonly rateLimit: RateLimiter;
  readonly transcription: TranscriptionService;
  readonly requests: RequestLog;
  readonly objects: ObjectListing;
  readonly shape: ShapeName;
  /** Known once both servers listen. */
  readonly addresses: () => { readonly baseUrl: string; readonly s3Url: string };
}

export class EmulatorConsole {
  /**
   * Embedded in the page and required from a browser on every change (guard.ts): another page
   * cannot read it, so it cannot forge such a request. New for every emulator process.
   */
  readonly token = randomBytes(24).toString("base64url");

  constructor(private readonly deps: ConsoleDeps) {}

  static handles(pathname: string): boolean {
    return pathname === CONSOLE_PAGE || pathname.startsWith(`${CONSOLE_PAGE}/`);
  }

  async serve(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    for (const [name, value] of Object.entries(COMMON_HEADERS)) res.setHeader(name, value);
    const method = req.method ?? "GET";
    if (method !== "GET" && method !== "HEAD") {
      throw new ApiError(405, "method_not_allowed", `the console only reads; ${method} is not allowed here`, {
        allow: "GET, HEAD",
      });
    }
    const path = url.pathname.slice(CONSOLE_PAGE.length).replace(/\/$/, "");
    const segments = path.split("/").slice(1);
    if (path === "") return this.page(res);
    if (segments[0] === "static" && segments.length === 2) return this.asset(res, segments[1]!);
    if (path === "/api/overview") return sendJson(res, 200, await this.overview(url.searchParams.get("bucket")));
    if (path === "/api/requests") return sendJson(res, 200, this.requestsAfter(url.searchParams.get("after")));
    if (segments[0] === "api" && segments[1] === "buckets" && segments[3] === "object" && segments.length === 4) {
      const bucket = this.deps.state.getBucket(decodeURIComponent(segments[2]!));
      if (bucket === undefined) throw new ApiError(404, "not_found", `bucket ${segments[2]} does not exist`);
      return this.download(res, bucket.name, url.searchParams.get("key"));
    }
    throw new ApiError(404, "not_found", `no console address ${url.pathname}`);
  }

  private async page(res: ServerResponse): Promise<void> {
    const template = await readFile(join(STATIC_DIR, "index.html"), "utf8");
    const html = template.replace("{{token}}", this.token);
    res.writeHead(200, {
      "content-type": "text/html; charset=utf-8",
      "content-length": String(Buffer.byteLength(html)),
      "content-security-policy": PAGE_POLICY,
    });
    res.end(html);
  }

  private async asset(res: ServerResponse, name: string): Promise<void> {
    const type = STATIC_TYPES[name];
    if (type === undefined) throw new ApiError(404, "not_found", `the console has no file ${name}`);
    const body = await readFile(join(STATIC_DIR, name));
    res.writeHead(200, { "content-type": type, "content-length": String(body.length) });
    res.end(body);
  }

  /**
   * Everything the page shows but the requests, and the objects of one bucket: the one asked for,
   * else the first (read in the same answer, so a bucket deleted meanwhile is simply not there).
   */
  private async overview(selected: string | null) {
    const { state, transcription, faults, stats } = this.deps;
    const buckets = state.listBuckets();
    const shown = buckets.find((b) => b.id === selected) ?? buckets[0];
    const names = new Map(buckets.map((b) => [b.id, b.name]));
    const snapshot = stats.snapshot();
    const { baseUrl, s3Url } = this.deps.addresses();
    return {
      emulator: { shape: this.deps.shape, base_url: baseUrl, s3_url: s3Url },
      balance_usd: transcription.getBalance(),
      buckets: await Promise.all(
        buckets.map(async ({ id, name, storage_class, created_at }) => {
          const listing = await this.deps.objects.list(name, 0);
          return { id, name, storage_class, created_at, objects: listing.count, bytes: listing.bytes };
        }),
      ),
      // Field by field: a credential record also holds its secret.
      credentials: state.listAllCredentials().map(({ access_key_id, bucket_id, active, created_at }) => ({
        access_key_id,
        bucket_id,
        bucket_name: names.get(bucket_id) ?? null,
        active,
        created_at,
      })),
      zones: state.listZones().map(({ id, name, status, nameservers, created_at }) => ({
        id,
        name,
        status,
        nameservers,
        created_at,
      })),
      objects:
        shown === undefined
          ? null
          : {
              bucket: { id: shown.id, name: shown.name },
              ...(await this.deps.objects.list(shown.name, LISTED_OBJECTS)),
            },
      transcripts: transcription.summaries().sort((a, b) => b.created_at.localeCompare(a.created_at)),
      faults: faults.current,
      rate_limit: this.deps.rateLimit.current,
      stats: {
        writes: snapshot.writes,
        areas: snapshot.areas,
        injected: snapshot.injected,
      },
    };
  }

  private requestsAfter(after: string | null) {
    const cursor = after === null ? 0 : Number(after);
    if (!Number.isSafeInteger(cursor) || cursor < 0) {
      throw new ApiError(400, "validation_error", "after: send the `last` of the previous answer, a whole number");
    }
    return { ...this.deps.requests.since(cursor), capacity: this.deps.requests.capacity };
  }

  /** Always as a download: an HTML or SVG object must never run as a page of the console's origin. */
  private async download(res: ServerResponse, bucket: string, key: string | null): Promise<void> {
    if (key === null || key === "") throw new ApiError(400, "validation_error", "key: name the object to download");
    const object = await this.deps.objects.open(bucket, key);
    if (object === undefined) throw new ApiError(404, "not_found", `object ${key} does not exist in bucket ${bucket}`);
    const fileName = key.split("/").pop() || "object";
    res.writeHead(200, {
      "content-type": "application/octet-stream",
      "content-length": String(object.summary.size),
      "content-disposition": `attachment; filename="${fileName.replace(/[^\x20-\x7e]|["\\]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(fileName)}`,
      "content-security-policy": "default-src 'none'; sandbox",
    });
    if (object.bytes !== undefined) {
      res.end(object.bytes);
      return;
    }
    const file = object.file!;
    try {
      await pipeline(file.createReadStream({ autoClose: false }), res);
    } catch (err) {
      // The browser went away or cancelled the download: nothing to answer.
      if ((err as NodeJS.ErrnoException).code !== "ERR_STREAM_PREMATURE_CLOSE") throw err;
    } finally {
      await file.close();
    }
  }
}
