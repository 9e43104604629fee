import type { ApiError } from "./api-error.js";

/**
 * What a management or transcription handler answers, before any shape (docs/api-contract.md §9.2)
 * decides how it looks on the wire. Values carry the canonical snake_case fields of §3–§8 and the
 * emulator's own identifiers; a shape renames, re-encodes and wraps them.
 */
export type Kind = "api_key" | "zone" | "bucket" | "credential" | "transcript" | "upload" | "upload_receipt";

export type Fields = Readonly<Record<string, unknown>>;

export type Reply =
  | {
      readonly type: "object";
      readonly kind: Kind;
      readonly status: number;
      readonly value: Fields;
      /**
       * Path a queued transcript can be read at, without its id: a `Location` header ending in the
       * id as the shape shows it. Only transcripts are read back by a client that polls.
       */
      readonly locationPrefix?: string;
    }
  | { readonly type: "list"; readonly kind: Kind; readonly values: readonly Fields[] }
  /** Activate / deactivate: the state was set; `summary` says what in words. */
  | { readonly type: "state_set"; readonly kind: Kind; readonly value: Fields; readonly summary: string }
  | { readonly type: "deleted"; readonly kind: Kind; readonly summary: string }
  | { readonly type: "error"; readonly error: ApiError };

export const objectReply = (kind: Kind, value: Fields, status = 200): Reply => ({
  type: "object",
  kind,
  status,
  value,
});

export const listReply = (kind: Kind, values: readonly Fields[]): Reply => ({ type: "list", kind, values });

export const deletedReply = (kind: Kind, summary: string): Reply => ({ type: "deleted", kind, summary });
