/**
 * One credentials list per bucket for a short while: a refresh reads every credential of a stack
 * concurrently in one provider process, and N credentials of one bucket should cost one request,
 * not N. The lists belong to the client that read them (one per host and settings); every change
 * to a bucket's credentials, or to the bucket, forgets its entry.
 */
import { listCredentials } from "../api.js";
import type { ApiClient } from "../client.js";
import type { Credential } from "../shapes.js";

const ttlMs = 2_000;
const caches = new WeakMap<ApiClient, Map<string, { at: number; list: Promise<Credential[]> }>>();

function cacheOf(api: ApiClient): Map<string, { at: number; list: Promise<Credential[]> }> {
  let cache = caches.get(api);
  if (cache === undefined) caches.set(api, (cache = new Map()));
  return cache;
}

export function cachedCredentialList(api: ApiClient, bucketId: string): Promise<Credential[]> {
  const cache = cacheOf(api);
  const hit = cache.get(bucketId);
  if (hit !== undefined && Date.now() - hit.at < ttlMs) return hit.list;
  const list = listCredentials(api, bucketId);
  cache.set(bucketId, { at: Date.now(), list });
  list.catch(() => cache.delete(bucketId));
  return list;
}

export function forgetCredentialList(api: ApiClient, bucketId: string): void {
  caches.get(api)?.delete(bucketId);
}
