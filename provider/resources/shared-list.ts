/**
 * Lists shared by the reads of a short while: a refresh reads every resource of a stack at once,
 * and N objects of one parent collection (the buckets, the zones, one bucket's credentials) should
 * cost one request, not N. The list is kept for a couple of seconds only, and forgotten as soon as
 * this process changes that collection, so it never stands for an object's state for longer than a
 * refresh takes to read it.
 */
import type { ApiClient } from "../client.js";
import type { CallContext } from "../contract.js";

interface Shared {
  current?: { readonly at: number; readonly list: Promise<unknown[]> };
}

const ttlMs = 2_000;

function slot(ctx: CallContext, collection: string): Shared {
  return ctx.memo(`list ${ctx.settings.baseUrl} ${collection}`, (): Shared => ({}));
}

/**
 * The list of `collection` (a key naming it, e.g. `buckets`), from `load` or from a list read by
 * another call of the last couple of seconds, or still under way. A failed list is not kept.
 */
export function sharedList<T>(ctx: CallContext, collection: string, load: () => Promise<T[]>): Promise<T[]> {
  const shared = slot(ctx, collection);
  const now = ctx.clock.now();
  const hit = shared.current;
  if (hit !== undefined && now - hit.at < ttlMs) return hit.list as Promise<T[]>;
  const list = load();
  const entry = { at: now, list };
  shared.current = entry;
  list.catch(() => {
    if (shared.current === entry) delete shared.current;
  });
  return list;
}

/** This process changed `collection` (created, deleted, activated…): a list read before is outdated. */
export function collectionChanged(ctx: CallContext, collection: string): void {
  delete slot(ctx, collection).current;
}

/**
 * One object of a collection: from the shared list (`list`) when it holds `id`, else from `get` (a
 * GET, which alone decides that an object is gone, so an object created after the list was read is
 * still found), given the shared list to look in where the GET cannot answer.
 */
export async function readThroughList<T extends { id: string }>(
  ctx: CallContext,
  collection: string,
  list: (client: ApiClient) => Promise<T[]>,
  get: (client: ApiClient, id: string, list: () => Promise<T[]>) => Promise<T>,
  id: string,
): Promise<T> {
  const shared = () => sharedList(ctx, collection, () => list(ctx.client));
  const listed = await shared().catch(() => undefined);
  return listed?.find((item) => item.id === id) ?? get(ctx.client, id, shared);
}
