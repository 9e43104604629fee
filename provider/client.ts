/**
 * The platform's HTTP client. A request goes through named stages (provider/request/), each a
 * small function with its own tests, assembled in `request` below as undici's interceptors and
 * aws-sdk-js-v3's middleware steps are:
 *
 *   prepare → authenticate → send → read (a success) or classify (anything else) → reconcile → retry
 *
 * `send` passes the process's pacing gate for the platform and key first (pace.ts, shared by every
 * client of the process: host.ts builds new clients when settings change).
 *
 * `prepare` makes the URL, headers and JSON body; `authenticate` chooses the Authorization form;
 * `send` makes one attempt over a keep-alive undici pool per origin, within its deadline; `read`
 * parses a successful answer with zod; `classify` turns an error status or a lost connection into
 * a typed error (errors.ts) that names the endpoint and never a secret, with its fate; `reconcile`
 * keeps a create from being repeated blindly once it may have been processed (docs/api-contract.md
 * §2.4); `retry` makes the attempt again while the fate and the policy allow (retry.ts, §2.2).
 */
import type { Auth, Settings } from "./config.js";
import { defaultRetryPolicy, type RetryPolicy } from "./retry.js";
import { systemClock } from "./vocabulary.js";
import { authenticate, refusedCredential } from "./request/authenticate.js";
import { classify } from "./request/classify.js";
import { prepare } from "./request/prepare.js";
import { paced } from "./request/pace.js";
import { gateFor } from "./request/shared-gate.js";
import { isExpected, read } from "./request/read.js";
import { reconciling } from "./request/reconcile.js";
import { retrying } from "./request/retrying.js";
import { send } from "./request/send.js";
import type { ApiResponse, Attempt, Base, ClientOptions, RequestOptions } from "./request/types.js";

export { closePools } from "./request/send.js";
export type { ApiResponse, Base, ClientOptions, HttpMethod, RequestOptions } from "./request/types.js";

/** Builds a path from literal segments and ids, encoding the ids. */
export function pathOf(strings: TemplateStringsArray, ...ids: readonly string[]): string {
  return strings.reduce((acc, s, i) => acc + s + (i < ids.length ? encodeURIComponent(ids[i] as string) : ""), "");
}

export class ApiClient {
  readonly settings: Settings;
  private readonly options: ClientOptions;
  private readonly policy: RetryPolicy;
  /** Bases that took `Bearer <api_key>` after refusing the raw key (request/authenticate.ts). */
  private readonly bearerBases = new Set<Base>();

  constructor(settings: Settings, options: ClientOptions = {}) {
    this.settings = settings;
    this.options = options;
    this.policy = { ...defaultRetryPolicy, ...options.retry };
  }

  /** The general request; the typed calls are in each resource's `api.ts`. */
  async request<T = unknown>(opts: RequestOptions<T>): Promise<ApiResponse<T>> {
    const req = prepare(opts, this.settings, this.options);
    const clock = this.options.clock ?? systemClock;
    const gate = gateFor(clock, req.url.origin, this.settings.auth.value, this.settings);
    const current = () => this.options.currentAuth?.() ?? this.settings.auth;
    // Every sending after the first goes before first sendings at the gate (pace.ts, `acquire`).
    let sendings = 0;
    const sendWith = (auth: Auth) =>
      authenticate(auth, req.base, this.bearerBases, (authorization) =>
        paced(gate, clock, () => send(req, authorization, this.options.dispatcher), sendings++ > 0),
      );
    const once: Attempt<T> = async () => {
      let auth = current();
      let answer = await sendWith(auth);
      // Refused with a key this run has rotated meanwhile (an ApiKey resource beside this one): the
      // request was not processed, so it goes again, once, with the key the run uses now.
      if (answer.kind === "reply" && refusedCredential(answer.status) && current().value !== auth.value) {
        auth = current();
        answer = await sendWith(auth);
      }
      return answer.kind === "reply" && isExpected(answer.status, opts.expectedStatus)
        ? read(answer, opts.schema, req.endpoint)
        : classify(answer, req, auth.kind, clock.now());
    };
    const attempt = req.idempotent ? once : reconciling(once, req.endpoint, opts);
    return retrying(attempt, req.endpoint, this.policy, clock, this.options.onRetry);
  }
}
