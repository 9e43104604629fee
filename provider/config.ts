/**
 * Provider settings, read at call time (docs/api-contract.md §1). Nothing here is read when the
 * program builds its resources: a value read then would be captured into the serialized provider
 * (`__provider`) in plaintext.
 *
 * Precedence per setting: stack config handed to `configure()`, then the `PULUMI_CONFIG`
 * environment JSON, then the `CLOUDPLATFORM_*` environment variables.
 */
import { ConfigInvalidError, ConfigMissingError } from "./errors.js";
import { registerSecret } from "./redact.js";

export type SettingName =
  "baseUrl" | "s3Url" | "apiUrl" | "apiKey" | "token" | "maxRequestsPerSecond" | "maxConcurrentRequests";

/**
 * Every setting: its environment variable, whether it is a credential, whether it is a number (the
 * plugin schema's type; stack config hands it over as text), the text the plugin schema shows.
 */
export const settingTable: Record<SettingName, { env: string; secret?: true; type?: "number"; description: string }> = {
  baseUrl: { env: "CLOUDPLATFORM_BASE_URL", description: "Management API address." },
  s3Url: { env: "CLOUDPLATFORM_S3_URL", description: "S3 endpoint; needed by buckets and credentials." },
  apiUrl: { env: "CLOUDPLATFORM_API_URL", description: "Transcription API address; defaults to baseUrl." },
  apiKey: { env: "CLOUDPLATFORM_API_KEY", secret: true, description: "Project API key; wins over token." },
  token: { env: "CLOUDPLATFORM_TOKEN", secret: true, description: "Dashboard token (JWT)." },
  maxRequestsPerSecond: {
    env: "CLOUDPLATFORM_MAX_REQUESTS_PER_SECOND",
    type: "number",
    description:
      "The platform's rate limit for this key, when known: the provider process never sends more API requests per second, and starts at this rate. Without it the provider learns the limit from 429 answers.",
  },
  maxConcurrentRequests: {
    env: "CLOUDPLATFORM_MAX_CONCURRENT_REQUESTS",
    type: "number",
    description: "At most this many API requests in flight at once per provider process. Default: no bound.",
  },
};
export const settingNames = Object.keys(settingTable) as SettingName[];

export type Auth =
  { readonly kind: "apiKey"; readonly value: string } | { readonly kind: "token"; readonly value: string };

export interface Settings {
  readonly baseUrl: string;
  /** Undefined when not set: only resources that talk S3 or output the endpoint need it. */
  readonly s3Url: string | undefined;
  readonly apiUrl: string;
  readonly auth: Auth;
  /** Requests per second the pacing gate never exceeds (provider/request/pace.ts); unset = learn it. */
  readonly maxRequestsPerSecond?: number;
  /** Requests in flight at once, per provider process and key; unset = no bound. */
  readonly maxConcurrentRequests?: number;
}

/** Looks a namespaced key (`cloudplatform:apiKey`) up in one source. */
export type ConfigLookup = (key: string) => string | undefined;

/** The provider host's source after configure(): the `PULUMI_CONFIG` environment JSON. */
const pulumiConfigLookup: ConfigLookup = (key) => pulumiConfigEnv()[key];

/**
 * Where one host (or the program) reads its settings, and what a run learned about them: the values
 * of `configure()`, an API key the provider rotated, whether the both-credentials warning was given.
 */
export class ProviderConfig {
  private configured: Record<string, string> = {};
  private rotatedApiKey: string | undefined;
  private warnedBoth = false;
  /**
   * The last settings resolved, and the environment they were resolved in; kept until configure()
   * changes a value, the key is rotated or the environment changes: a provider process asks for
   * them in every call (hundreds in a refresh).
   */
  private resolved: { settings: Settings; environment: string } | undefined;

  /** `fallback` is asked for keys `configure()` did not set; the environment comes after both. */
  constructor(private readonly fallback: ConfigLookup = pulumiConfigLookup) {}

  /** The host's `configure()`, with the whole stack config (namespaced keys). */
  configure(values: Record<string, string | undefined>): void {
    const clean: Record<string, string> = {};
    for (const [key, value] of Object.entries(values)) if (typeof value === "string") clean[key] = value;
    // The dynamic host configures each provider text it loads, with the same stack config.
    if (JSON.stringify(clean) === JSON.stringify(this.configured)) return;
    this.configured = clean;
    this.resolved = undefined;
  }

  /** One setting as configured, not validated. */
  raw(name: SettingName): string | undefined {
    return read(name, this.lookup);
  }

  /** The validated settings (see `resolveSettings`); the both-credentials warning is given once. */
  settings(onWarning?: (message: string) => void): Settings {
    const once = (message: string) => {
      if (!this.warnedBoth) onWarning?.(message);
      this.warnedBoth = true;
    };
    const environment = settingsEnvironment();
    if (this.resolved?.environment !== environment) {
      this.resolved = { settings: resolveSettings(this.lookup, once, this.rotatedApiKey), environment };
    }
    return this.resolved.settings;
  }

  /**
   * After the provider rotated the API key it authenticates with, the old key no longer works: the
   * rest of the run uses the new one, whatever the config says.
   */
  useRotatedApiKey(key: string): void {
    registerSecret(key);
    this.rotatedApiKey = key;
    this.resolved = undefined;
  }

  private readonly lookup: ConfigLookup = (key) => this.configured[key] ?? this.fallback(key);
}

/** Every environment variable settings are read from, as one string. */
function settingsEnvironment(): string {
  return JSON.stringify([process.env["PULUMI_CONFIG"], ...settingNames.map((n) => process.env[settingTable[n].env])]);
}

function pulumiConfigEnv(): Record<string, string> {
  const raw = process.env["PULUMI_CONFIG"];
  if (raw === undefined || raw === "") return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (typeof parsed !== "object" || parsed === null) return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === "string") out[k] = v;
    return out;
  } catch {
    return {};
  }
}

function read(name: SettingName, lookup: ConfigLookup): string | undefined {
  const value = lookup(`cloudplatform:${name}`) ?? process.env[settingTable[name].env];
  return value === undefined || value.trim() === "" ? undefined : value.trim();
}

export function howToSet(name: SettingName): string {
  const { env, secret } = settingTable[name];
  return `\`pulumi config set${secret ? " --secret" : ""} cloudplatform:${name} <value>\` or the environment variable ${env}`;
}

function url(name: SettingName, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigInvalidError(
      `cloudplatform:${name} is not a valid URL`,
      `Set it with ${howToSet(name)}, e.g. https://api.example.com.`,
    );
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ConfigInvalidError(`cloudplatform:${name} must be an http(s) URL`, `Set it with ${howToSet(name)}.`);
  }
  return value.replace(/\/+$/, "");
}

/** A limit setting: a positive number (a whole one for a count), or undefined when not set. */
function limit(name: "maxRequestsPerSecond" | "maxConcurrentRequests", lookup: ConfigLookup): number | undefined {
  const text = read(name, lookup);
  if (text === undefined) return undefined;
  const value = Number(text);
  const whole = name === "maxConcurrentRequests";
  if (!Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) {
    throw new ConfigInvalidError(
      `cloudplatform:${name} must be a positive ${whole ? "whole number" : "number"}, not "${text}"`,
      `Set it with ${howToSet(name)}, e.g. ${whole ? "8" : "10"}, or remove it.`,
    );
  }
  return value;
}

/**
 * Resolves the settings from `lookup` and the environment. Throws `ConfigMissingError` naming both
 * ways to set a missing value. When both an API key and a token are set, the API key wins (contract
 * §1: it is meant for automation; a dashboard JWT expires mid-deployment) and `onWarning` is told.
 * A key the provider rotated (`rotatedApiKey`) wins over the configured one, without a warning.
 */
export function resolveSettings(
  lookup: ConfigLookup = pulumiConfigLookup,
  onWarning?: (message: string) => void,
  rotatedApiKey?: string,
): Settings {
  const base = read("baseUrl", lookup);
  if (base === undefined) {
    throw new ConfigMissingError("the management API address is not set", `Set it with ${howToSet("baseUrl")}.`);
  }
  const baseUrl = url("baseUrl", base);
  const s3 = read("s3Url", lookup);
  const api = read("apiUrl", lookup);
  const apiKey = rotatedApiKey ?? read("apiKey", lookup);
  const token = read("token", lookup);
  registerSecret(apiKey);
  registerSecret(token);
  let auth: Auth;
  if (apiKey !== undefined) {
    auth = { kind: "apiKey", value: apiKey };
  } else if (token !== undefined) {
    auth = { kind: "token", value: token };
  } else {
    throw new ConfigMissingError(
      "no credential is set",
      `Set an API key with ${howToSet("apiKey")}, or a dashboard token with ${howToSet("token")}.`,
    );
  }
  if (apiKey !== undefined && token !== undefined && rotatedApiKey === undefined) {
    onWarning?.(
      "both cloudplatform:apiKey and cloudplatform:token are set; using the API key and ignoring the token " +
        "(an API key is meant for automation, a dashboard token expires). Remove one of them to silence this warning.",
    );
  }
  const maxRequestsPerSecond = limit("maxRequestsPerSecond", lookup);
  const maxConcurrentRequests = limit("maxConcurrentRequests", lookup);
  return {
    baseUrl,
    s3Url: s3 === undefined ? undefined : url("s3Url", s3),
    apiUrl: api === undefined ? baseUrl : url("apiUrl", api),
    auth,
    ...(maxRequestsPerSecond === undefined ? {} : { maxRequestsPerSecond }),
    ...(maxConcurrentRequests === undefined ? {} : { maxConcurrentRequests }),
  };
}

/**
 * The S3 endpoint a read records: the one the state holds, else the configured one. A read that
 * has neither (an import on a stack without `cloudplatform:s3Url`) records "" and says so through
 * `warn`, with how to fill it in: `s3Endpoint` is what programs hand to S3 clients.
 */
export function s3EndpointForRead(recorded: string | undefined, settings: Settings, warn: (m: string) => void): string {
  if (recorded !== undefined && recorded !== "") return recorded;
  if (settings.s3Url !== undefined) return settings.s3Url;
  warn(
    "s3Endpoint is empty: the S3 endpoint is not set, so it could not be recorded. " +
      `Set it with ${howToSet("s3Url")}, then run \`pulumi refresh\` to record it.`,
  );
  return "";
}

/** The S3 endpoint, or a clear error for the resources that need it. */
export function requireS3Url(settings: Settings): string {
  if (settings.s3Url === undefined) {
    throw new ConfigMissingError("the S3 endpoint is not set", `Set it with ${howToSet("s3Url")}.`);
  }
  return settings.s3Url;
}
