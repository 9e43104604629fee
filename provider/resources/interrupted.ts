/**
 * What a create learns from the recovery journal (journal.ts) about an interrupted run of the same
 * resource: the name it drew, and whether the object that now holds a unique name is the one it
 * made, to be adopted rather than refused with `409 name_taken` (docs/api-contract.md §2.4). The
 * create of a uniquely named object (a bucket, a zone) keeps the journal through `createNamed`.
 */
import type { Created } from "../answers/outcomes.js";
import type { CallContext } from "../contract.js";
import { hasCode } from "../errors.js";
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
function earlierCreate(ctx: CallContext, type: string): JournalEntry | undefined {
  return ctx.journal.find(type, ctx.name, platformOf(ctx));
}

/**
 * Records that the create of a uniquely named object is about to be sent, unless the journal
 * already records a create of that very name: that earlier entry keeps its time (the lower bound of
 * when the object could have been made) and its id.
 */
function recordNamedCreate(
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
function madeByInterruptedCreate(
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

/** How the create of a uniquely named object ended. */
export type NamedCreate<T> =
  /** This request made it (`reconciled`: found by its name after the answer was lost or unreadable). */
  | { readonly kind: "made"; readonly object: T; readonly reconciled: boolean }
  /** The name was taken by the object an interrupted run of this resource made: it is this resource's. */
  | { readonly kind: "interrupted"; readonly object: T }
  /** The program adopts, and the object holding the name was found before any create was sent. */
  | { readonly kind: "existing"; readonly object: T }
  /** The name is someone else's: the platform's 409, and the object holding the name if it was looked up. */
  | { readonly kind: "taken"; readonly error: Error; readonly existing: T | undefined };

/**
 * Creates the object named `name`, keeping the journal: the create is recorded before it is sent
 * and its id once answered; a refusal that says nothing was made forgets it. A 409 looks the name's
 * holder up (`find`) when the journal knows the name, or when the program would adopt it (`adopt`),
 * and tells the object an interrupted run of this resource made from someone else's. A program that
 * adopts looks the name up first: taking an existing object over then writes nothing at all.
 */
export async function createNamed<T extends { readonly id: string; readonly created_at?: string | undefined }>(
  ctx: CallContext,
  type: string,
  name: string,
  adopt: boolean,
  calls: { readonly create: () => Promise<Created<T>>; readonly find: () => Promise<T | undefined> },
): Promise<NamedCreate<T>> {
  const earlier = earlierCreate(ctx, type);
  if (adopt) {
    const existing = await calls.find();
    if (existing !== undefined) {
      if (madeByInterruptedCreate(earlier, name, existing)) {
        ctx.journal.created(type, ctx.name, platformOf(ctx), existing.id);
        return { kind: "interrupted", object: existing };
      }
      ctx.journal.forget(type, ctx.name);
      return { kind: "existing", object: existing };
    }
  }
  recordNamedCreate(ctx, type, earlier, name);
  let made: Created<T>;
  try {
    made = await calls.create();
  } catch (err) {
    if (!hasCode(err, "CLOUDPLATFORM_CONFLICT")) {
      if (refusedOutright(err)) ctx.journal.forget(type, ctx.name);
      throw err;
    }
    // Looked up only when it may be adopted: the journal knows the name, or the program says adopt.
    const existing = earlier?.objectName === name || adopt ? await calls.find() : undefined;
    if (existing !== undefined && madeByInterruptedCreate(earlier, name, existing)) {
      ctx.journal.created(type, ctx.name, platformOf(ctx), existing.id);
      return { kind: "interrupted", object: existing };
    }
    // The name is someone else's: nothing of this resource's to find later.
    ctx.journal.forget(type, ctx.name);
    return { kind: "taken", error: err as Error, existing };
  }
  ctx.journal.created(type, ctx.name, platformOf(ctx), made.value.id);
  return { kind: "made", object: made.value, reconciled: made.reconciled };
}
