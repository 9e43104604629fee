import type { IncomingMessage } from "node:http";
import { ApiError, missing } from "./api-error.js";
import type { Logger, RouteCounter } from "./interfaces.js";
import type { Reply } from "./replies.js";
import type { Area, Router } from "./router.js";
import type { IdKind } from "./shapes/shape.js";

/** Path parameters that hold an object's identifier, which a shape may spell differently. */
const ID_PARAMS: Readonly<Record<string, IdKind>> = {
  bucketId: "bucket",
  zoneId: "zone",
  // Only /v1/transcripts/{id} has an `{id}`; the template keeps that name as the stats key.
  id: "transcript",
};

export interface DispatchDeps {
  readonly router: Router;
  readonly counter: RouteCounter;
  readonly logger: Logger;
  /** Whether the request carries a credential that the given area accepts. */
  authenticate(req: IncomingMessage, area: Area): boolean | Promise<boolean>;
  /** The `Authorization` forms an area accepts, in words, for the 401 message. */
  credentialForms(area: Area): string;
  /** The emulator's identifier named by a path segment, or undefined when it names no object. */
  resolveId(kind: IdKind, segment: string): string | undefined;
}

/**
 * Routes one management or transcription request to its handler and turns every outcome into a
 * Reply: authentication comes before routing answers (so unknown paths reveal nothing), then
 * 405 / 404, then the handler. Never throws.
 */
export async function dispatch(deps: DispatchDeps, req: IncomingMessage, url: URL): Promise<Reply> {
  const method = req.method ?? "GET";
  const match = deps.router.match(method, url.pathname);
  try {
    if (match.kind === "found") {
      deps.counter.count(match.route.area, `${method} ${match.route.path}`, method !== "GET" && method !== "HEAD");
    }
    const area = match.kind === "found" ? match.route.area : areaOf(url.pathname);
    const open = match.kind === "found" && match.route.authenticated === false;
    if (!open && !(await deps.authenticate(req, area))) throw unauthorized(deps.credentialForms(area));
    if (match.kind === "wrong_method") {
      throw new ApiError(
        405,
        "method_not_allowed",
        `${method} is not allowed here; use ${match.allowed.join(" or ")}`,
        {
          allow: match.allowed.join(", "),
        },
      );
    }
    if (match.kind === "none") throw new ApiError(404, "not_found", `no endpoint ${method} ${url.pathname}`);
    const params: Record<string, string> = { ...match.params };
    for (const [param, kind] of Object.entries(ID_PARAMS)) {
      const segment = params[param];
      if (segment === undefined) continue;
      params[param] = deps.resolveId(kind, segment) ?? missing(`${kind} ${segment}`);
    }
    return await match.route.handle({ req, params, query: url.searchParams });
  } catch (err) {
    if (err instanceof ApiError) return { type: "error", error: err };
    deps.logger.error("request failed", { route: url.pathname, error: (err as Error).message });
    return {
      type: "error",
      error: new ApiError(500, "internal", "the emulator failed to serve this request; see its log"),
    };
  }
}

function areaOf(pathname: string): Area {
  return pathname === "/v1" || pathname.startsWith("/v1/") ? "transcription" : "management";
}

const unauthorized = (forms: string): ApiError =>
  new ApiError(401, "unauthorized", `missing, invalid or expired credential: send ${forms}`, {
    "www-authenticate": 'Bearer realm="cloudplatform"',
  });

/** The forms of docs/api-contract.md §2. */
export const RAW_KEY_OR_JWT = "`Authorization: <api key>` or `Authorization: Bearer <jwt>`";
