import type { IncomingMessage } from "node:http";

export interface HandlerContext {
  readonly req: IncomingMessage;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
}

interface Reply {
  readonly status: number;
  readonly body?: unknown;
}

export interface Route {
  readonly method: "GET" | "POST" | "DELETE";
  /** Path template such as `/object-storage/buckets/{bucketId}`; also the stats and log key. */
  readonly path: string;
  handle(ctx: HandlerContext): Promise<Reply>;
}

type Match =
  | { kind: "found"; route: Route; params: Record<string, string> }
  | { kind: "wrong_method"; allowed: string[] }
  | { kind: "none" };

/** Matches a request path against route templates segment by segment. */
export class Router {
  constructor(private readonly routes: readonly Route[]) {}

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
      if (name === null) return { status: 200, body: records };
      const wanted = normalize(name);
      return { status: 200, body: records.filter((record) => record.name === wanted) };
    },
  };
}
