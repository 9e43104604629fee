import type { ApiError } from "../api-error.js";
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
  render(reply: Reply, directory: Directory): WireAnswer;
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
  /** The body of a list answer. */
  list(kind: Kind, items: Record<string, unknown>[]): unknown;
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
    render(reply, directory) {
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
        case "list":
          return jsonAnswer(
            200,
            rules.list(
              reply.kind,
              reply.values.map((v) => rules.fields(reply.kind, v, directory)),
            ),
          );
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
