/** One page of a bucket listing (ListObjects v1 and v2 share it). */
import { compareKeys } from "./object-store.js";

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

/** The first index whose key is after `bound` (or equal to it when `inclusive`). */
function firstIndex(sorted: readonly string[], bound: string, inclusive: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareKeys(sorted[mid]!, bound);
    if (c < 0 || (c === 0 && !inclusive)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function listPage(sorted: readonly string[], query: ListQuery): ListPage {
  const { prefix, delimiter, after, maxKeys } = query;
  const keys: string[] = [];
  const commonPrefixes: string[] = [];
  let last: string | undefined;
  let count = 0;
  // Start at the later of "after" and the prefix, so a narrow prefix in a big bucket stays cheap.
  let i = compareKeys(after, prefix) >= 0 ? firstIndex(sorted, after, false) : firstIndex(sorted, prefix, true);
  for (; i < sorted.length; i++) {
    const key = sorted[i]!;
    if (!key.startsWith(prefix)) {
      if (compareKeys(key, prefix) > 0) break;
      continue;
    }
    let item = key;
    let isPrefix = false;
    if (delimiter !== "") {
      const at = key.indexOf(delimiter, prefix.length);
      if (at >= 0) {
        item = key.slice(0, at + delimiter.length);
        isPrefix = true;
        // A page that ended on this common prefix already reported every key under it.
        if (item === last || item === after) continue;
      }
    }
    if (count === maxKeys) return { keys, commonPrefixes, isTruncated: true, last };
    if (isPrefix) commonPrefixes.push(item);
    else keys.push(item);
    last = item;
    count++;
  }
  return { keys, commonPrefixes, isTruncated: false, last };
}
