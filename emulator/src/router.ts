import type { IncomingMessage } from "node:http";
import { listReply, objectReply, type Fields, type Kind, type Reply } from "./replies.js";

export interface HandlerContext {
  readonly req: IncomingMessage;
  /** Path parameters; identifiers (`{bucketId}`, `{zoneId}`, `{transcriptId}`) are the emulator's own. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
}

export type Area = "management" | "transcription";

export interface Route {
  readonly method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path template such as `/object-storage/buckets/{bucketId}`; also the stats and log key. */
  readonly path: string;
  /** False for a route whose URL carries its own authorization (the upload PUT). @default true */
  readonly authenticated?: boolean;
  handle(ctx: HandlerContext): Promise<Reply>;
}

/** A route with the area it belongs to, which decides its stats bucket and its credential rules. */
export interface AreaRoute extends Route {
  readonly area: Area;
}

export const inArea = (area: Area, routes: readonly Route[]): AreaRoute[] =>
  routes.map((route) => ({ ...route, area }));

type Match =
  | { kind: "found"; route: AreaRoute; params: Record<string, string> }
  | { kind: "wrong_method"; allowed: string[] }
  | { kind: "none" };

/** Matches a request path against route templates segment by segment. */
export class Router {
  constructor(private readonly routes: readonly AreaRoute[]) {}

  match(method: string, pathname: string): Match {
    const segments = splitPath(pathname);
    if (segments === undefined) return { kind: "none" };
    const allowed: string[] = [];
    for (const route of this.routes) {
      const params = matchTemplate(splitPath(route.path)!, segments);
      if (params === undefined) continue;
      if (route.method === method) return { kind: "found", route, params };
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: "wrong_method", allowed } : { kind: "none" };
  }
}

function splitPath(pathname: string): string[] | undefined {
  const trimmed = pathname.length > 1 && pathname.endsWith("/") ? pathname.slice(0, -1) : pathname;
  try {
    return trimmed
      .split("/")
      .slice(1)
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

function matchTemplate(template: string[], segments: string[]): Record<string, string> | undefined {
  if (template.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < template.length; i++) {
    const t = template[i]!;
    const s = segments[i]!;
    if (t.startsWith("{") && t.endsWith("}")) {
      if (s === "") return undefined;
      params[t.slice(1, -1)] = s;
    } else if (t !== s) {
      return undefined;
    }
  }
  return params;
}

/**
 * `GET <path>`: every record, or with `?name=` only the one of that exact name (docs/api-contract.md
 * §4, §5), which is how the provider finds a zone or bucket again by name. `normalize` makes the
 * query compare like the stored names do.
 */
export function listByNameRoute<T extends { readonly name: string }>(
  kind: Kind,
  path: string,
  list: () => T[],
  normalize: (name: string) => string = (name) => name,
): Route {
  return {
    method: "GET",
    path,
    async handle({ query }) {
      const name = query.get("name");
      const records = list();
      if (name === null) return listReply(kind, records);
      const wanted = normalize(name);
      return listReply(
        kind,
        records.filter((record) => record.name === wanted),
      );
    },
  };
}

/** `GET <collection>/{param}`: one record, or the 404 that `find` throws. */
export function readOneRoute(kind: Kind, path: string, find: (id: string) => Fields): Route {
  const param = /\{(\w+)\}$/.exec(path)![1]!;
  return {
    method: "GET",
    path,
    async handle({ params }) {
      return objectReply(kind, find(params[param]!));
    },
  };
}
