import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError } from "./api-error.js";
import type { Authenticator } from "./auth.js";
import { dispatch, RAW_KEY_OR_JWT, type DispatchDeps } from "./dispatch.js";
import type { AnswerFault, Refuse } from "./front.js";
import { writeAnswer } from "./http-io.js";
import type { Logger, RouteCounter } from "./interfaces.js";
import { Router, type AreaRoute } from "./router.js";
import type { Directory, Shape, WireAnswer } from "./shapes/index.js";
import { noteError } from "./stats.js";

interface ApiServerDeps {
  /** The management and transcription routes. */
  readonly routes: readonly AreaRoute[];
  readonly shape: Shape;
  readonly directory: Directory;
  readonly auth: Authenticator;
  readonly counter: RouteCounter;
  readonly logger: Logger;
  /** Items per page of a list answer; 0 answers every list in one page (§9.3). */
  readonly pageSize: number;
}

/** What a garbled answer looks like: a 200 that no JSON client can read, as a proxy's error page. */
const GARBLED: WireAnswer = {
  status: 200,
  headers: { "content-type": "text/html; charset=utf-8" },
  body: "<!DOCTYPE html>\n<html><head><title>Gateway</title></head><body><h1>Request received</h1></body></html>\n",
};

const JSON_FAULT_CODES: Readonly<Record<number, string>> = {
  400: "validation_error",
  408: "request_timeout",
  429: "rate_limited",
  500: "internal",
  503: "unavailable",
};

/**
 * The management and transcription server: one router for both areas, answers rendered in the
 * configured shape (docs/api-contract.md §9.2), and the faults that spoil an answer after the
 * request was processed (§9.1).
 */
export function createApiServer(deps: ApiServerDeps): {
  serve(req: IncomingMessage, res: ServerResponse, url: URL, fault?: AnswerFault): Promise<void>;
  refuse: Refuse;
} {
  const { shape, directory } = deps;
  const bearerOnly = shape.transcriptionApiKey === "bearer";
  const dispatchDeps: DispatchDeps = {
    router: new Router(deps.routes.filter((route) => shape.offers(route.method, route.path))),
    counter: deps.counter,
    logger: deps.logger,
    authenticate: (req, area) =>
      deps.auth.check(req.headers.authorization, area === "transcription" && bearerOnly ? "bearer" : "raw"),
    credentialForms: (area) =>
      area === "transcription" && bearerOnly ? "`Authorization: Bearer <api key>` or `Bearer <jwt>`" : RAW_KEY_OR_JWT,
    resolveId: (kind, segment) => shape.resolveId(kind, segment, directory),
  };
  return {
    async serve(req, res, url, fault) {
      const reply = await dispatch(dispatchDeps, req, url);
      if (reply.type === "error") noteError(reply.error.code);
      // The request was processed and its effect stored before either fault spoils the answer.
      if (fault === "lose") req.socket.destroy();
      else
        writeAnswer(
          req,
          res,
          fault === "garble" ? GARBLED : shape.render(reply, directory, { url, pageSize: deps.pageSize }),
        );
    },
    refuse(req, res, status, message, headers) {
      const code = JSON_FAULT_CODES[status] ?? (status >= 500 ? "unavailable" : "injected_fault");
      noteError(code);
      writeAnswer(
        req,
        res,
        shape.render({ type: "error", error: new ApiError(status, code, message, headers) }, directory),
      );
    },
  };
}
