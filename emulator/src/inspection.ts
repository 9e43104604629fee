import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { ApiError } from "./api-error.js";
import { foreignBrowserRequest } from "./console/guard.js";
import { EmulatorConsole } from "./console/index.js";
import type { RequestLog } from "./console/request-log.js";
import { faultConfigSchema, type FaultInjector } from "./faults.js";
import { rateLimitSettingsSchema, type RateLimiter } from "./rate-limit.js";
import { sendApiError, sendJson, sendNoContent } from "./http-io.js";
import { ipRange } from "./ip-range.js";
import type { ObjectStoreApi, TranscriptionService } from "./interfaces.js";
import { parseBody } from "./management/body.js";
import type { StateStore } from "./state.js";
import type { Stats } from "./stats.js";

/** True for 127.0.0.0/8, ::1 and IPv4-mapped loopback; false for anything else or unknown. */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && ipRange(address) === "loopback";
}

/**
 * True when the Host header names localhost or an IP literal. A web page that rebinds its own DNS
 * name to 127.0.0.1 sends that name as Host, so this keeps browsers from resetting the emulator.
 */
export function isLocalHostHeader(host: string | undefined): boolean {
  if (host === undefined) return false;
  const name = host.startsWith("[") ? host.slice(1, host.indexOf("]")) : host.replace(/:\d+$/, "");
  return name === "localhost" || ipRange(name) !== undefined;
}

interface InspectionDeps {
  readonly state: StateStore;
  readonly stats: Stats;
  readonly faults: FaultInjector;
  readonly rateLimit: RateLimiter;
  readonly objects: ObjectStoreApi;
  readonly transcription: TranscriptionService;
  readonly requests: RequestLog;
  readonly console: EmulatorConsole;
}

/**
 * Every object the platform holds, by identity, so a soak can count orphans and duplicates without
 * an API key and whatever shape the API answers in.
 */
function inventory(deps: InspectionDeps) {
  return {
    buckets: deps.state.listBuckets().map(({ id, name, storage_class }) => ({ id, name, storage_class })),
    zones: deps.state.listZones().map(({ id, name }) => ({ id, name })),
    credentials: deps.state
      .listAllCredentials()
      .map(({ bucket_id, access_key_id, active }) => ({ bucket_id, access_key_id, active })),
    transcripts: deps.transcription.inventory(),
  };
}

const balanceBody = z.strictObject({ balance_usd: z.number().min(0).max(1_000_000) });

/**
 * Emulator-only endpoints under /_emulator/ (docs/api-contract.md §9), the console among them: no
 * authentication, which is why only loopback peers are served, and no other web page may drive
 * them through the user's browser.
 */
export async function handleInspection(
  deps: InspectionDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
): Promise<void> {
  try {
    if (!isLoopbackAddress(req.socket.remoteAddress) || !isLocalHostHeader(req.headers.host)) {
      throw new ApiError(403, "forbidden", "the /_emulator/ endpoints answer only loopback clients");
    }
    const foreign = foreignBrowserRequest(req, url.pathname, deps.console.token);
    if (foreign !== undefined) {
      throw new ApiError(
        403,
        "forbidden",
        `${foreign}; the /_emulator/ endpoints take changes from the console page or from programs, not from other web pages`,
      );
    }
    if (EmulatorConsole.handles(url.pathname)) return await deps.console.serve(req, res, url);
    const route = `${req.method ?? "GET"} ${url.pathname.replace(/\/$/, "")}`;
    switch (route) {
      case "GET /_emulator/stats":
        return sendJson(res, 200, deps.stats.snapshot());
      case "GET /_emulator/balance":
        return sendJson(res, 200, { balance_usd: deps.transcription.getBalance() });
      case "PUT /_emulator/balance": {
        const body = await parseBody(req, balanceBody);
        deps.transcription.setBalance(body.balance_usd);
        return sendJson(res, 200, { balance_usd: deps.transcription.getBalance() });
      }
      case "POST /_emulator/reset":
        deps.state.reset();
        await deps.objects.reset();
        await deps.transcription.reset();
        deps.stats.reset();
        deps.requests.clear();
        deps.rateLimit.reset();
        return sendNoContent(res);
      case "GET /_emulator/faults":
        return sendJson(res, 200, deps.faults.current);
      case "PUT /_emulator/faults": {
        deps.faults.set(await parseBody(req, faultConfigSchema, {}));
        return sendJson(res, 200, deps.faults.current);
      }
      case "GET /_emulator/rate-limit":
        return sendJson(res, 200, deps.rateLimit.current);
      case "PUT /_emulator/rate-limit":
      case "POST /_emulator/rate-limit": {
        deps.rateLimit.set(await parseBody(req, rateLimitSettingsSchema, {}));
        return sendJson(res, 200, deps.rateLimit.current);
      }
      case "GET /_emulator/state":
        return sendJson(res, 200, {
          ...deps.state.counts(),
          objects: await deps.objects.countObjects(),
          transcripts: deps.transcription.countTranscripts(),
        });
      case "GET /_emulator/inventory":
        return sendJson(res, 200, inventory(deps));
      default:
        throw new ApiError(404, "not_found", `no emulator endpoint ${route}`);
    }
  } catch (err) {
    if (err instanceof ApiError) return sendApiError(res, err);
    throw err;
  }
}
