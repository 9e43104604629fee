import { createLogger, silentLogger, startEmulator, type EmulatorOptions, type RunningEmulator } from "../src/index.js";

/** Emulator options for tests: quiet unless EMULATOR_LOG=1, loopback audio allowed. */
export function testOptions(options: EmulatorOptions = {}): EmulatorOptions {
  return {
    logger: process.env["EMULATOR_LOG"] === "1" ? createLogger() : silentLogger,
    allowLoopbackUrls: true,
    ...options,
  };
}

/** Runs `fn` against a fresh emulator on free loopback ports and always closes it. */
export async function withEmulator<T>(
  fn: (emulator: RunningEmulator) => Promise<T>,
  options: EmulatorOptions = {},
): Promise<T> {
  const emulator = await startEmulator(testOptions(options));
  try {
    return await fn(emulator);
  } finally {
    await emulator.close();
  }
}

export interface ApiResponse {
  readonly status: number;
  /** Parsed JSON, or undefined for an empty body. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response shapes
  readonly body: any;
  readonly headers: Headers;
}

export interface RequestOptions {
  /** JSON body; a string is sent as is. */
  readonly body?: unknown;
  /** Authorization header; default the emulator's API key, null for none. */
  readonly auth?: string | null;
  readonly headers?: Record<string, string>;
}

/** One JSON request to the emulator's management/transcription/inspection server. */
export async function call(
  emulator: RunningEmulator,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { ...options.headers };
  const auth = options.auth === undefined ? emulator.apiKey : options.auth;
  if (auth !== null) headers["authorization"] = auth;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await fetch(emulator.baseUrl + path, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as unknown), headers: res.headers };
}

/** Creates a bucket with a unique name and returns it. */
export async function createBucket(emulator: RunningEmulator, prefix = "bkt"): Promise<{ id: string; name: string }> {
  const name = `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
  const res = await call(emulator, "POST", "/object-storage/buckets", { body: { name, storage_class: "Standard" } });
  if (res.status !== 201) throw new Error(`bucket create failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; name: string };
}
