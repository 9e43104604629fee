/**
 * What a create learns from the recovery journal (journal.ts) about an interrupted run of the same
 * resource: the name it drew, and whether the object that now holds a unique name is the one it
 * made, to be adopted rather than refused with `409 name_taken` (docs/api-contract.md §2.4).
 */
import type { CallContext } from "../contract.js";
import type { JournalEntry } from "../journal.js";

/**
 * How far the platform's clock may be behind this machine's: an object created by the interrupted
 * create cannot be older than its journal entry by more than this.
 */
const clockSkewMs = 5 * 60_000;

/** The platform a call is about, as the journal records it: check may run before settings are valid. */
export function platformOf(ctx: CallContext): string {
  return (ctx.configured("baseUrl") ?? "").replace(/\/+$/, "");
}

/** The journal's entry of this resource, as its create sees it. */
export function earlierCreate(ctx: CallContext, type: string): JournalEntry | undefined {
  return ctx.journal.find(type, ctx.name, platformOf(ctx));
}

/**
 * Records that the create of a uniquely named object is about to be sent, unless the journal
 * already records a create of that very name: that earlier entry keeps its time (the lower bound of
 * when the object could have been made) and its id.
 */
export function recordNamedCreate(
  ctx: CallContext,
  type: string,
  earlier: JournalEntry | undefined,
  objectName: string,
): void {
  if (earlier?.objectName === objectName) return;
  ctx.journal.creating(type, ctx.name, platformOf(ctx), { objectName });
}

/**
 * Whether `found`, the object that holds `objectName`, is the one an interrupted create of this
 * same resource made: the journal recorded its id, or recorded a create of that name sent before
 * the object appeared (an object older than the entry was someone else's).
 */
export function madeByInterruptedCreate(
  earlier: JournalEntry | undefined,
  objectName: string,
  found: { readonly id: string; readonly created_at?: string | undefined },
): boolean {
  if (earlier?.objectName !== objectName) return false;
  if (earlier.id !== undefined) return earlier.id === found.id;
  if (found.created_at === undefined) return true;
  const created = Date.parse(found.created_at);
  return Number.isNaN(created) || created >= earlier.at - clockSkewMs;
}

/** A create answered with an error that says it did not happen: nothing for a later run to find. */
export function refusedOutright(err: unknown): boolean {
  const status = (err as { status?: unknown } | null)?.status;
  return typeof status === "number" && [400, 401, 403, 404, 409, 422].includes(status);
}
