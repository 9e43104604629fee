import { parseArgs } from "node:util";
import { parseStatusRates } from "./faults.js";
import { parseRateLimit, parseRefusalStatus, type RateLimitSettings } from "./rate-limit.js";
import { createLogger, silentLogger } from "./logger.js";
import { SHAPE_NAMES, startEmulator, type EmulatorOptions, type RunningEmulator, type ShapeName } from "./index.js";

const isShapeName = (name: string): name is ShapeName => (SHAPE_NAMES as readonly string[]).includes(name);

const HELP = `Usage: cloudplatform-emulator [options]

Local, offline Cloud Platform: management API, transcription and an S3 data plane.
When ready it prints one JSON line on stdout:
  {"baseUrl":…,"s3Url":…,"apiUrl":…,"apiKey":…,"token":…,"shape":…}
then logs to stderr. Ctrl-C or SIGTERM stops it; state is already on disk.

Options:
  --port <n>              management + transcription port (0 = a free port)   [0]
  --s3-port <n>           S3 data plane port (0 = a free port)                [0]
  --host <addr>           address to listen on                                [127.0.0.1]
  --data-dir <dir>        keep state and objects there, across restarts       [in memory]
  --balance-usd <n>       initial transcription balance in US$                [10]
  --sync-wait-ms <n>      synchronous wait of POST /v1/transcripts            [20000]
  --retention-days <n>    how long transcripts are kept                       [7]
  --allow-loopback-urls   let transcripts fetch audio from loopback (tests only)
  --transcriber <cmd>     speech engine command, given a 16 kHz mono WAV path
  --fault-rate <list>     inject error statuses, e.g. 503=0.1,429=0.05
  --latency-ms <n>        add latency to every request                        [0]
  --drop-rate <r>         drop this share of connections without answering   [0]
  --lose-rate <r>         process this share of API requests, then close the
                          connection without answering                        [0]
  --garble-rate <r>       process this share of API requests, then answer 200
                          with a body that is not JSON                        [0]
  --fault-seed <n>        draw the faults from this seed (0 to 4294967295), so
                          the same requests get the same faults               [random]
  --rate-limit <r>[/<b>]  refuse API requests over r per second per API key
                          (bursts of b, default r) with 429 + Retry-After     [off]
  --announce-rate-limit   with --rate-limit: state the limit in RateLimit-Policy
                          and RateLimit headers on every API answer (IETF draft)
  --rate-limit-status <s> with --rate-limit: refuse with 429 or 503           [429]
  --rate-limit-no-retry-after
                          with --rate-limit: refuse without Retry-After (with
                          503: nginx's limit_req as it comes)
  --shape <name>          how API answers look: canonical, envelope, flat or
                          by-name (docs/api-contract.md §9.2)                 [canonical]
  --page-size <n>         answer lists in pages of n items, each shape paging in
                          its own way (§9.3; 0 = one page)                    [0]
  --body-idle-timeout-ms <n>
                          close a request whose body makes no progress this
                          long, with 408 (0 = never)                          [60000]
  --quiet                 no request log
  --help                  show this help
`;

export class UsageError extends Error {
  readonly code = "EMULATOR_USAGE";
}

/** Turns command-line arguments into startEmulator options; throws UsageError on bad input. */
export function parseCliOptions(argv: string[]): { help: true } | { help: false; options: EmulatorOptions } {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: "string" },
        "s3-port": { type: "string" },
        host: { type: "string" },
        "data-dir": { type: "string" },
        "balance-usd": { type: "string" },
        "sync-wait-ms": { type: "string" },
        "retention-days": { type: "string" },
        "allow-loopback-urls": { type: "boolean" },
        transcriber: { type: "string" },
        "fault-rate": { type: "string" },
        "latency-ms": { type: "string" },
        "drop-rate": { type: "string" },
        "lose-rate": { type: "string" },
        "garble-rate": { type: "string" },
        "fault-seed": { type: "string" },
        "rate-limit": { type: "string" },
        "announce-rate-limit": { type: "boolean" },
        "rate-limit-status": { type: "string" },
        "rate-limit-no-retry-after": { type: "boolean" },
        shape: { type: "string" },
        "page-size": { type: "string" },
        "body-idle-timeout-ms": { type: "string" },
        quiet: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (values.help === true) return { help: true };
  const num = (name: string, raw: string | undefined, check: (n: number) => boolean): number | undefined => {
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(n) || !check(n))
      throw new UsageError(`--${name}: "${raw}" is not a valid value`);
    return n;
  };
  const isPort = (n: number): boolean => Number.isInteger(n) && n >= 0 && n <= 65535;
  const nonNegative = (n: number): boolean => n >= 0;
  const isRate = (n: number): boolean => n >= 0 && n <= 1;
  const shape = values.shape;
  if (shape !== undefined && !isShapeName(shape)) {
    throw new UsageError(`--shape: "${shape}" is not one of ${SHAPE_NAMES.join(", ")}`);
  }
  const statusRates = asUsage(() =>
    values["fault-rate"] === undefined ? undefined : parseStatusRates(values["fault-rate"]),
  );
  const announce = values["announce-rate-limit"] === true;
  const refusalStatus = values["rate-limit-status"];
  const noRetryAfter = values["rate-limit-no-retry-after"] === true;
  // How the limit is announced and how it refuses only matter with a limit: alone, these flags are a mistake.
  const needLimit = {
    "announce-rate-limit": announce,
    "rate-limit-status": refusalStatus !== undefined,
    "rate-limit-no-retry-after": noRetryAfter,
  };
  for (const [flag, given] of Object.entries(needLimit)) {
    if (given && values["rate-limit"] === undefined) {
      throw new UsageError(`--${flag}: it needs a limit; add --rate-limit <r>[/<b>]`);
    }
  }
  const rateLimit = asUsage((): RateLimitSettings | undefined => {
    if (values["rate-limit"] === undefined) return undefined;
    return {
      ...parseRateLimit(values["rate-limit"]),
      ...(announce ? { announce } : {}),
      ...(refusalStatus !== undefined ? { status: parseRefusalStatus(refusalStatus) } : {}),
      ...(noRetryAfter ? { retryAfter: false } : {}),
    };
  });
  const options: EmulatorOptions = {
    port: num("port", values.port, isPort),
    s3Port: num("s3-port", values["s3-port"], isPort),
    host: values.host,
    dataDir: values["data-dir"],
    balanceUsd: num("balance-usd", values["balance-usd"], nonNegative),
    syncWaitMs: num("sync-wait-ms", values["sync-wait-ms"], nonNegative),
    retentionDays: num("retention-days", values["retention-days"], nonNegative),
    allowLoopbackUrls: values["allow-loopback-urls"] === true,
    transcriber: values.transcriber,
    faults: {
      statusRates,
      latencyMs: num("latency-ms", values["latency-ms"], (n) => Number.isInteger(n) && n >= 0),
      dropRate: num("drop-rate", values["drop-rate"], isRate),
      loseRate: num("lose-rate", values["lose-rate"], isRate),
      garbleRate: num("garble-rate", values["garble-rate"], isRate),
      seed: num("fault-seed", values["fault-seed"], (n) => Number.isInteger(n) && n >= 0 && n <= 0xffff_ffff),
    },
    rateLimit,
    shape,
    pageSize: num("page-size", values["page-size"], (n) => Number.isInteger(n) && n >= 0),
    bodyIdleTimeoutMs: num(
      "body-idle-timeout-ms",
      values["body-idle-timeout-ms"],
      (n) => Number.isInteger(n) && n >= 0,
    ),
    logger: values.quiet === true ? silentLogger : createLogger(),
  };
  return { help: false, options: withoutUndefined(options) };
}

/** Runs a parser of one option's text, its errors becoming usage errors. */
function asUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** Drops unset options so the emulator's defaults apply. */
function withoutUndefined<T extends object>(value: T): T {
  const entries = Object.entries(value)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [
      k,
      typeof v === "object" && v !== null && !Array.isArray(v) && k === "faults" ? withoutUndefined(v) : v,
    ]);
  return Object.fromEntries(entries) as T;
}

/** Entry point of bin/cloudplatform-emulator.js. */
export async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseCliOptions(argv);
  } catch (err) {
    process.stderr.write(`cloudplatform-emulator: ${(err as Error).message}\n\n${HELP}`);
    process.exitCode = 2;
    return;
  }
  if (parsed.help) {
    process.stdout.write(HELP);
    return;
  }
  let emulator: RunningEmulator;
  try {
    emulator = await startEmulator(parsed.options);
  } catch (err) {
    process.stderr.write(`cloudplatform-emulator: could not start: ${(err as Error).message}\n`);
    process.exitCode = 1;
    return;
  }
  const { baseUrl, s3Url, apiUrl, apiKey, token, shape } = emulator;
  process.stdout.write(JSON.stringify({ baseUrl, s3Url, apiUrl, apiKey, token, shape }) + "\n");

  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second Ctrl-C means "now": state is written on every mutation, so nothing is lost.
      process.exit(130);
    }
    stopping = true;
    process.stderr.write(`cloudplatform-emulator: ${signal} received, shutting down\n`);
    emulator.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`cloudplatform-emulator: shutdown failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
