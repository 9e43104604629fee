import { ApiError } from "../api-error.js";
import type { Fields, Kind, Reply } from "../replies.js";

/**
 * A shape is how one platform fills the gaps the spec leaves (docs/api-contract.md §9.2): it turns
 * the handlers' Replies into wire answers, says how paths name objects, which routes exist and how
 * the transcription endpoints take the API key. Handlers know nothing of shapes.
 */
export const SHAPE_NAMES = ["canonical", "envelope", "flat", "by-name"] as const;
export type ShapeName = (typeof SHAPE_NAMES)[number];

/** An answer as written: status, headers and an optional body. */
export interface WireAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

export type IdKind = "bucket" | "zone" | "transcript";

/** What a shape may look up about the objects the emulator holds. */
export interface Directory {
  /** The emulator's ids of every object of a kind. */
  ids(kind: IdKind): Iterable<string>;
  /** The id of the bucket or zone with this name. */
  idByName(kind: "bucket" | "zone", name: string): string | undefined;
  /** The name of the bucket with this id. */
  bucketName(id: string): string | undefined;
}

/** For a server without management objects (transcription alone): nothing to look up. */
export const EMPTY_DIRECTORY: Directory = { ids: () => [], idByName: () => undefined, bucketName: () => undefined };

export interface Shape {
  readonly name: ShapeName;
  /**
   * How the transcription endpoints take the project API key: raw like the management API, or
   * only as `Bearer <api key>`. A JWT is always `Bearer <jwt>`.
   */
  readonly transcriptionApiKey: "raw" | "bearer";
  /** False for a route this platform does not have (its path then answers 405 or 404). */
  offers(method: string, template: string): boolean;
  /** The emulator's id that a path segment names, or undefined when it names no object. */
  resolveId(kind: IdKind, segment: string, directory: Directory): string | undefined;
  /** The identifier a client sees for an object (also in the transcript webhook). */
  publicId(kind: IdKind, id: string): string | number;
  /** `request`: the list request being answered, when lists are paged (`pageSize` above 0). */
  render(reply: Reply, directory: Directory, request?: ListRequest): WireAnswer;
}

/** A list request, for paging (docs/api-contract.md §9.3). */
export interface ListRequest {
  readonly url: URL;
  /** Items per page; 0 answers every list in one page. */
  readonly pageSize: number;
}

/**
 * How a shape asks for the next page of a list (§9.3): a `Link` header `rel="next"` to `?page=n`,
 * a page number and count in the body (`?page=n`), or a token in the body (`?pageToken=t`).
 */
export type Paging = "link" | "page-number" | "token";

/** One page of a paged list, for the shape to write into the body. */
export interface ListPage {
  /** 1-based. */
  readonly page: number;
  readonly pages: number;
  /** With token paging: the token of the next page, absent on the last. */
  readonly nextToken?: string;
}

export function jsonAnswer(status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): WireAnswer {
  return {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
    body: JSON.stringify(body),
  };
}

export function emptyAnswer(status: number, headers: Readonly<Record<string, string>> = {}): WireAnswer {
  return { status, headers };
}

/** What makes one shape: each hook sees canonical values and the emulator's ids. */
export interface ShapeRules {
  readonly name: ShapeName;
  readonly transcriptionApiKey: "raw" | "bearer";
  offers?(method: string, template: string): boolean;
  resolveId?(kind: IdKind, segment: string, directory: Directory): string | undefined;
  publicId?(kind: IdKind, id: string): string | number;
  /** One object's fields as this platform spells them. */
  fields(kind: Kind, value: Fields, directory: Directory): Record<string, unknown>;
  /** The body of an answer carrying one object (its fields already spelled). */
  object(kind: Kind, fields: Record<string, unknown>): unknown;
  /** How this platform pages its lists when the emulator pages them. @default "link" */
  readonly paging?: Paging;
  /** The body of a list answer; `page` when lists are paged. */
  list(kind: Kind, items: Record<string, unknown>[], page?: ListPage): unknown;
  /** The answer to an activate / deactivate. */
  stateSet(fields: Record<string, unknown>, summary: string): WireAnswer;
  /** The answer to a delete. */
  deleted(summary: string): WireAnswer;
  error(error: ApiError): WireAnswer;
}

/** A Shape from its rules; the dispatch on the kind of Reply is the same for every shape. */
export function buildShape(rules: ShapeRules): Shape {
  const publicId = rules.publicId ?? ((_kind: IdKind, id: string) => id);
  return {
    name: rules.name,
    transcriptionApiKey: rules.transcriptionApiKey,
    offers: rules.offers ?? (() => true),
    resolveId: rules.resolveId ?? ((_kind, segment) => segment),
    publicId,
    render(reply, directory, request) {
      switch (reply.type) {
        case "object": {
          const headers: Record<string, string> =
            reply.locationPrefix !== undefined && typeof reply.value["id"] === "string"
              ? { location: `${reply.locationPrefix}${publicId("transcript", reply.value["id"])}` }
              : {};
          return jsonAnswer(
            reply.status,
            rules.object(reply.kind, rules.fields(reply.kind, reply.value, directory)),
            headers,
          );
        }
        case "list": {
          const spell = (values: readonly Fields[]) => values.map((v) => rules.fields(reply.kind, v, directory));
          if (request === undefined || request.pageSize <= 0)
            return jsonAnswer(200, rules.list(reply.kind, spell(reply.values)));
          const paging = rules.paging ?? "link";
          const page = pageAsked(request.url, paging);
          if (page === undefined) {
            const param = paging === "token" ? "pageToken" : "page";
            return rules.error(new ApiError(400, "validation_error", `${param} does not name a page of this list`));
          }
          const size = request.pageSize;
          const pages = Math.max(1, Math.ceil(reply.values.length / size));
          const items = spell(reply.values.slice((page - 1) * size, page * size));
          const next = page < pages ? page + 1 : undefined;
          if (paging === "link") {
            const headers: Record<string, string> =
              next === undefined ? {} : { link: `<${withParam(request.url, "page", String(next))}>; rel="next"` };
            return jsonAnswer(200, rules.list(reply.kind, items, { page, pages }), headers);
          }
          const nextToken = paging === "token" && next !== undefined ? pageToken(next) : undefined;
          return jsonAnswer(200, rules.list(reply.kind, items, { page, pages, ...(nextToken ? { nextToken } : {}) }));
        }
        case "state_set":
          return rules.stateSet(rules.fields(reply.kind, reply.value, directory), reply.summary);
        case "deleted":
          return rules.deleted(reply.summary);
        case "error":
          return rules.error(reply.error);
      }
    },
  };
}

/** An opaque token naming a page (base64url of `p<n>`). */
function pageToken(page: number): string {
  return Buffer.from(`p${page}`).toString("base64url");
}

/** The 1-based page a list request asks for (the first when it names none), or undefined when its parameter is not one. */
function pageAsked(url: URL, paging: Paging): number | undefined {
  const raw = url.searchParams.get(paging === "token" ? "pageToken" : "page");
  if (raw === null) return 1;
  const digits = paging === "token" ? /^p(\d{1,6})$/.exec(Buffer.from(raw, "base64url").toString())?.[1] : raw;
  const page = digits !== undefined && /^\d{1,6}$/.test(digits) ? Number(digits) : 0;
  return page >= 1 ? page : undefined;
}

/** The request's path and query, with `name` set to `value`. */
function withParam(url: URL, name: string, value: string): string {
  const params = new URLSearchParams(url.searchParams);
  params.set(name, value);
  return `${url.pathname}?${params.toString()}`;
}
