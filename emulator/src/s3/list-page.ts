/** One page of a bucket listing (ListObjects v1 and v2 share it). */
import { compareKeys, firstIndexAfter } from "./object-store.js";

interface ListQuery {
  readonly prefix: string;
  readonly delimiter: string;
  /** Exclusive lower bound: start-after, marker, or the last item of the previous page. */
  readonly after: string;
  readonly maxKeys: number;
}

export interface ListPage {
  readonly keys: string[];
  readonly commonPrefixes: string[];
  readonly isTruncated: boolean;
  /** The last key or common prefix on this page (the next page starts after it). */
  readonly last: string | undefined;
}

export function listPage(sorted: readonly string[], query: ListQuery): ListPage {
  const { prefix, delimiter, after, maxKeys } = query;
  const keys: string[] = [];
  const commonPrefixes: string[] = [];
  let last: string | undefined;
  let count = 0;
  // Start at the later of "after" and the prefix, so a narrow prefix in a big bucket stays cheap.
  let i =
    compareKeys(after, prefix) >= 0 ? firstIndexAfter(sorted, after, false) : firstIndexAfter(sorted, prefix, true);
  for (; i < sorted.length; i++) {
    const key = sorted[i]!;
    if (!key.startsWith(prefix)) {
      if (compareKeys(key, prefix) > 0) break;
      continue;
    }
    const at = delimiter === "" ? -1 : key.indexOf(delimiter, prefix.length);
    const item = at < 0 ? key : key.slice(0, at + delimiter.length);
    if (at >= 0) {
      // Every key under a common prefix rolls up into it: step over them in one binary search, so
      // that a page costs its own items, not the keys under them.
      i = endOfRun(sorted, item, i) - 1;
      // The page that ended on this common prefix reported it.
      if (item === after) continue;
    }
    if (count === maxKeys) return { keys, commonPrefixes, isTruncated: true, last };
    if (at >= 0) commonPrefixes.push(item);
    else keys.push(item);
    last = item;
    count++;
  }
  return { keys, commonPrefixes, isTruncated: false, last };
}

/** The first index from `from` on whose key does not start with `prefix` (such keys are contiguous). */
function endOfRun(sorted: readonly string[], prefix: string, from: number): number {
  let lo = from;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
