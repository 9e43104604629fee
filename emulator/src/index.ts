import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Authenticator } from "./auth.js";
import { EmulatorConsole } from "./console/index.js";
import { RequestLog } from "./console/request-log.js";
import { ObjectReader } from "./s3/object-reader.js";
import { credentialDirectory } from "./credential-directory.js";
import { createApiServer } from "./api-server.js";
import { createFront } from "./front.js";
import { FaultInjector, faultConfigSchema, type FaultSettings } from "./faults.js";
import { handleInspection } from "./inspection.js";
import { RateLimiter, rateLimitSettingsSchema, type RateLimitSettings } from "./rate-limit.js";
import type { Logger, S3Plane, TranscriptionService } from "./interfaces.js";
import { createLogger } from "./logger.js";
import { managementRoutes } from "./management/index.js";
import { normalizeZoneName } from "./names.js";
import { createS3Plane, refuseS3 } from "./s3/index.js";
import { shapeNamed, type Directory, type ShapeName } from "./shapes/index.js";
import { StateStore } from "./state.js";
import { Stats } from "./stats.js";
import { createTranscriptionService } from "./transcription/index.js";

export { isLoopbackAddress } from "./inspection.js";
export { createLogger, silentLogger } from "./logger.js";
export type { FaultConfig, FaultSettings } from "./faults.js";
export type { RateLimitConfig, RateLimitSettings } from "./rate-limit.js";
export { SHAPE_NAMES, type ShapeName } from "./shapes/index.js";

/** Default of `bodyIdleTimeoutMs`: long enough for any link that moves at all, short enough to free a stuck socket. */
export const DEFAULT_BODY_IDLE_TIMEOUT_MS = 60_000;

export interface EmulatorOptions {
  /** Port of the management + transcription server. @default 0 (a free port) */
  readonly port?: number;
  /** Port of the S3 data plane. @default 0 (a free port) */
  readonly s3Port?: number;
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** State and objects persist here and survive a restart; without it all is temporary. */
  readonly dataDir?: string;
  /** @default 10 */
  readonly balanceUsd?: number;
  /** @default 20000 */
  readonly syncWaitMs?: number;
  /** @default 7 */
  readonly retentionDays?: number;
  /** Lets transcripts fetch audio from loopback addresses (tests only). @default false */
  readonly allowLoopbackUrls?: boolean;
  /** External speech engine command, given a 16 kHz mono WAV path as last argument. */
  readonly transcriber?: string;
  /** Initial fault injection, as the body of PUT /_emulator/faults (docs/api-contract.md §9, §9.1). */
  readonly faults?: Readonly<FaultSettings>;
  /**
   * A token bucket per API credential in front of the management and transcription API, as the
   * body of PUT /_emulator/rate-limit (docs/api-contract.md §9.5); `announce: true` also states the
   * limit in `RateLimit-Policy` and `RateLimit` headers; `status: 503` with `retryAfter: false`
   * refuses as nginx's `limit_req` does as it comes (429 with `Retry-After` by default). @default off
   * @example { requestsPerSecond: 10, burst: 10, announce: true }
   */
  readonly rateLimit?: Readonly<RateLimitSettings>;
  /**
   * How the management and transcription answers look (docs/api-contract.md §9.2).
   * @default "canonical"
   */
  readonly shape?: ShapeName;
  /**
   * Items per page of the management lists, each shape paging in its own way (docs/api-contract.md
   * §9.3); 0 answers every list in one page. @default 0
   */
  readonly pageSize?: number;
  /**
   * A request whose body makes no progress for this long is answered 408 and closed; a slow body
   * that keeps moving is never cut. 0 turns it off. @default 60000
   */
  readonly bodyIdleTimeoutMs?: number;
  /** Lifetime of the dashboard JWT in the ready line. @default 86400 */
  readonly tokenTtlSeconds?: number;
  /** @default a logger writing to stderr */
  readonly logger?: Logger;
}

export interface RunningEmulator {
  readonly baseUrl: string;
  /** The shape of the management and transcription answers. */
  readonly shape: ShapeName;
  readonly s3Url: string;
  readonly apiUrl: string;
  /** The console, a web page of what the platform holds and the last requests (loopback only). */
  readonly consoleUrl: string;
  /** The project API key (the current one, also after a rotation). */
  readonly apiKey: string;
  /** Where state and objects are kept: `dataDir`, or a temporary directory removed on close. */
  readonly dataDir: string;
  /** A dashboard JWT valid for `tokenTtlSeconds`. */
  readonly token: string;
  /** Signs another dashboard JWT; a negative TTL gives an expired one. */
  issueToken(ttlSeconds: number): Promise<string>;
  /** Stops both servers and the areas; state is already on disk. Removes the temporary dir. */
  close(): Promise<void>;
}

/** Starts the management API, the transcription endpoints and the S3 data plane. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const logger = options.logger ?? createLogger();
  const host = options.host ?? "127.0.0.1";
  const persistent = options.dataDir !== undefined;
  const root = persistent ? resolve(options.dataDir!) : mkdtempSync(join(tmpdir(), "cloudplatform-emulator-"));
  const objectsDir = join(root, "objects");
  const transcriptionDir = join(root, "transcription");
  mkdirSync(objectsDir, { recursive: true });
  mkdirSync(transcriptionDir, { recursive: true });

  const state = StateStore.open(persistent ? join(root, "state.json") : undefined);
  const auth = new Authenticator(state);
  const stats = new Stats();
  const faults = new FaultInjector();
  faults.set(faultConfigSchema.parse(options.faults ?? {}));
  const rateLimit = new RateLimiter();
  rateLimit.set(rateLimitSettingsSchema.parse(options.rateLimit ?? {}));

  let baseUrl = "";
  let s3Url = "";
  const shape = shapeNamed(options.shape ?? "canonical");
  const pageSize = options.pageSize ?? 0;
  if (!Number.isInteger(pageSize) || pageSize < 0) throw new RangeError(`pageSize: ${pageSize} is not a whole number`);
  const bodyIdleTimeoutMs = options.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_TIMEOUT_MS;
  const s3: S3Plane = createS3Plane({
    dataDir: objectsDir,
    credentials: credentialDirectory(state),
    logger,
    counter: stats,
  });
  const transcription: TranscriptionService = createTranscriptionService({
    dataDir: transcriptionDir,
    persistent,
    apiUrl: () => baseUrl,
    syncWaitMs: options.syncWaitMs ?? 20_000,
    retentionDays: options.retentionDays ?? 7,
    allowLoopbackUrls: options.allowLoopbackUrls ?? false,
    ...(options.transcriber !== undefined ? { transcriber: options.transcriber } : {}),
    initialBalanceUsd: options.balanceUsd ?? 10,
    authenticate: (req) => auth.check(req.headers.authorization),
    publicTranscriptId: (id) => shape.publicId("transcript", id),
    logger,
    counter: stats,
  });
  const directory: Directory = {
    ids: (kind) => {
      if (kind === "bucket") return state.listBuckets().map((b) => b.id);
      if (kind === "zone") return state.listZones().map((z) => z.id);
      return transcription.inventory().map((t) => t.id);
    },
    idByName: (kind, name) =>
      kind === "bucket" ? state.bucketByName(name)?.id : state.zoneByName(normalizeZoneName(name))?.id,
    bucketName: (id) => state.getBucket(id)?.name,
  };
  const api = createApiServer({
    routes: [...managementRoutes(state, () => s3.objects), ...transcription.routes],
    shape,
    directory,
    auth,
    counter: stats,
    logger,
    pageSize,
  });

  const requests = new RequestLog();
  const emulatorConsole = new EmulatorConsole({
    state,
    stats,
    faults,
    rateLimit,
    transcription,
    requests,
    objects: new ObjectReader(objectsDir),
    shape: shape.name,
    addresses: () => ({ baseUrl, s3Url }),
  });
  const inspection = {
    state,
    stats,
    faults,
    rateLimit,
    objects: s3.objects,
    transcription,
    requests,
    console: emulatorConsole,
  };
  const mainServer = createServer(
    createFront(
      {
        faults,
        rateLimit,
        stats,
        logger,
        refuse: api.refuse,
        answerFaults: true,
        bodyIdleTimeoutMs,
        exempt: {
          test: (path) => path === "/_emulator" || path.startsWith("/_emulator/"),
          serve: (req, res, url) => handleInspection(inspection, req, res, url),
        },
        requests: {
          log: requests,
          area: (path) => (path === "/v1" || path.startsWith("/v1/") ? "transcription" : "management"),
        },
      },
      api.serve,
    ),
  );
  const s3Server = createServer(
    createFront(
      {
        faults,
        stats,
        logger,
        refuse: refuseS3,
        answerFaults: false,
        bodyIdleTimeoutMs,
        requests: { log: requests, area: () => "s3" },
      },
      (req, res) => s3.handle(req, res),
    ),
  );
  // The plane sends "100 Continue" itself once a request passed its checks, so that a refused one
  // (signature, precondition) is answered before its body is sent, as S3 does.
  s3Server.on("checkContinue", (req, res) => s3Server.emit("request", req, res));

  const closeAreas = async (): Promise<void> => {
    await transcription.close();
    await s3.close();
    if (!persistent) rmSync(root, { recursive: true, force: true });
  };
  try {
    const mainPort = await listen(mainServer, options.port ?? 0, host);
    const s3Port = await listen(s3Server, options.s3Port ?? 0, host);
    baseUrl = `http://${urlHost(host)}:${mainPort}`;
    s3Url = `http://${urlHost(host)}:${s3Port}`;
    const consoleUrl = `${baseUrl}/_emulator/console`;
    const token = await auth.issueToken(options.tokenTtlSeconds ?? 86_400);
    logger.info("emulator ready", {
      baseUrl,
      s3Url,
      console: consoleUrl,
      shape: shape.name,
      dataDir: persistent ? root : "(temporary)",
    });
    let closing: Promise<void> | undefined;
    return {
      baseUrl,
      shape: shape.name,
      s3Url,
      apiUrl: baseUrl,
      consoleUrl,
      get apiKey() {
        return state.currentApiKey;
      },
      dataDir: root,
      token,
      issueToken: (ttl) => auth.issueToken(ttl),
      close() {
        closing ??= (async () => {
          await Promise.all([stopServer(mainServer), stopServer(s3Server)]);
          await closeAreas();
          logger.info("emulator stopped");
        })();
        return closing;
      },
    };
  } catch (err) {
    await Promise.all([stopServer(mainServer), stopServer(s3Server)]);
    await closeAreas();
    throw err;
  }
}

async function listen(server: Server, port: number, host: string): Promise<number> {
  // Multi-GB uploads take longer than Node's default 5-minute request timeout.
  server.requestTimeout = 0;
  // Longer than clients' idle reuse, so a kept-alive socket is not closed under a new request.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolveListen, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolveListen();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Stops accepting, lets requests in flight finish for a moment, then cuts what remains. */
async function stopServer(server: Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((done) => server.close(() => done()));
  server.closeIdleConnections();
  const force = setTimeout(() => server.closeAllConnections(), 2_000);
  await closed;
  clearTimeout(force);
}

/** The host as written in a URL; a wildcard bind is advertised as loopback. */
function urlHost(host: string): string {
  if (host === "0.0.0.0") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
