import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "../api-error.js";
import type { Authenticator } from "../auth.js";
import { sendApiError, sendJson, sendNoContent } from "../http-io.js";
import type { Logger, ObjectStoreApi, RouteCounter } from "../interfaces.js";
import type { StateStore } from "../state.js";
import { apiKeyRoutes } from "./apikey.js";
import { bucketRoutes } from "./buckets.js";
import { credentialRoutes } from "./credentials.js";
import { Router } from "./router.js";
import { zoneRoutes } from "./zones.js";

interface ManagementDeps {
  readonly state: StateStore;
  readonly auth: Authenticator;
  /** Resolved late: the S3 plane is created after the management state it reads. */
  readonly objects: () => ObjectStoreApi;
  readonly counter: RouteCounter;
  readonly logger: Logger;
}

/** The management API of docs/api-contract.md §3–§6. */
export class ManagementApi {
  private readonly router: Router;

  constructor(private readonly deps: ManagementDeps) {
    this.router = new Router([
      ...apiKeyRoutes(deps.state),
      ...zoneRoutes(deps.state),
      ...bucketRoutes(deps.state, deps.objects),
      ...credentialRoutes(deps.state),
    ]);
  }

  async handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    const match = this.router.match(method, url.pathname);
    if (match.kind === "found") {
      this.deps.counter.count("management", `${method} ${match.route.path}`, method !== "GET" && method !== "HEAD");
    }
    try {
      // Authentication comes before routing answers, so unknown paths do not reveal anything.
      if (!(await this.deps.auth.check(req.headers.authorization))) {
        throw new ApiError(
          401,
          "unauthorized",
          "missing, invalid or expired credential: send `Authorization: <api key>` or `Authorization: Bearer <jwt>`",
          { "www-authenticate": 'Bearer realm="cloudplatform"' },
        );
      }
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
      const reply = await match.route.handle({ req, params: match.params, query: url.searchParams });
      if (reply.body === undefined) sendNoContent(res);
      else sendJson(res, reply.status, reply.body);
    } catch (err) {
      if (err instanceof ApiError) {
        sendApiError(res, err);
        return;
      }
      this.deps.logger.error("management request failed", { route: url.pathname, error: (err as Error).message });
      sendApiError(res, new ApiError(500, "internal", "the emulator failed to serve this request; see its log"));
    }
  }
}
