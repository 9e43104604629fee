import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ProviderConfig } from "../../provider/config.js";
import { toDynamicProvider } from "../../provider/dynamic.js";
import { dnsZoneCore } from "../../provider/resources/dns-zone/core.js";
import { apiKey, base, testHost, thrown, token } from "./support.js";

const envKeys = [
  "PULUMI_CONFIG",
  "CLOUDPLATFORM_BASE_URL",
  "CLOUDPLATFORM_S3_URL",
  "CLOUDPLATFORM_API_URL",
  "CLOUDPLATFORM_API_KEY",
  "CLOUDPLATFORM_TOKEN",
  "CLOUDPLATFORM_MAX_REQUESTS_PER_SECOND",
  "CLOUDPLATFORM_MAX_CONCURRENT_REQUESTS",
];
let saved: Record<string, string | undefined> = {};
let config = new ProviderConfig();

describe("settings", () => {
  beforeEach(() => {
    saved = Object.fromEntries(envKeys.map((k) => [k, process.env[k]]));
    for (const k of envKeys) delete process.env[k];
    config = new ProviderConfig();
  });
  afterEach(() => {
    for (const k of envKeys) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  it("prefers configure() values, then PULUMI_CONFIG, then the environment", () => {
    process.env["CLOUDPLATFORM_BASE_URL"] = "http://env.test";
    process.env["CLOUDPLATFORM_API_KEY"] = "cp-fromEnvironment";
    process.env["CLOUDPLATFORM_S3_URL"] = "http://s3-env.test";
    expect(config.settings()).toMatchObject({ baseUrl: "http://env.test", s3Url: "http://s3-env.test" });

    process.env["PULUMI_CONFIG"] = JSON.stringify({ "cloudplatform:baseUrl": "http://pulumi-config.test/" });
    expect(config.settings().baseUrl).toBe("http://pulumi-config.test");

    config.configure({ "cloudplatform:baseUrl": "http://configured.test", "cloudplatform:apiKey": apiKey });
    const s = config.settings();
    expect(s.baseUrl).toBe("http://configured.test");
    expect(s.auth).toEqual({ kind: "apiKey", value: apiKey });
    expect(s.s3Url).toBe("http://s3-env.test");
  });

  it("resolves once for the calls of a run, again when configure(), a rotation or the environment changes a value", () => {
    const values = { "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey };
    config.configure(values);
    const first = config.settings();
    // The dynamic host configures every provider text it loads with the same stack config.
    config.configure({ ...values });
    expect(config.settings()).toBe(first);
    config.configure({ ...values, "cloudplatform:s3Url": "http://s3.test" });
    const second = config.settings();
    expect(second).not.toBe(first);
    expect(second.s3Url).toBe("http://s3.test");
    config.useRotatedApiKey("cp-rotatedKey_0123456789");
    expect(config.settings().auth).toEqual({ kind: "apiKey", value: "cp-rotatedKey_0123456789" });
    const third = config.settings();
    process.env["CLOUDPLATFORM_API_URL"] = "http://transcripts.test";
    expect(config.settings()).not.toBe(third);
    expect(config.settings().apiUrl).toBe("http://transcripts.test");
  });

  it("reads namespaced keys through the host's configure() request", async () => {
    const values: Record<string, string> = { "cloudplatform:baseUrl": base, "cloudplatform:token": token };
    const host = testHost();
    await toDynamicProvider(dnsZoneCore, host).configure!({
      config: { get: (k: string) => values[k], require: (k: string) => values[k] as string },
    });
    expect(host.context("DnsZone", "z").settings).toMatchObject({
      baseUrl: base,
      apiUrl: base,
      auth: { kind: "token", value: token },
    });
  });

  it("defaults apiUrl to baseUrl", () => {
    config.configure({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey });
    expect(config.settings().apiUrl).toBe(base);
    config.configure({
      "cloudplatform:baseUrl": base,
      "cloudplatform:apiKey": apiKey,
      "cloudplatform:apiUrl": "http://tx.test",
    });
    expect(config.settings().apiUrl).toBe("http://tx.test");
  });

  it("names both ways to set a missing setting", async () => {
    const noBase = await thrown(async () => config.settings());
    expect(noBase.code).toBe("CLOUDPLATFORM_CONFIG_MISSING");
    expect(noBase.message).toContain("pulumi config set cloudplatform:baseUrl");
    expect(noBase.message).toContain("CLOUDPLATFORM_BASE_URL");

    config.configure({ "cloudplatform:baseUrl": base });
    const noAuth = await thrown(async () => config.settings());
    expect(noAuth.message).toContain("pulumi config set --secret cloudplatform:apiKey");
    expect(noAuth.message).toContain("CLOUDPLATFORM_API_KEY");
    expect(noAuth.message).toContain("CLOUDPLATFORM_TOKEN");
  });

  it("refuses a URL that is not http(s)", async () => {
    config.configure({ "cloudplatform:baseUrl": "ftp://x", "cloudplatform:apiKey": apiKey });
    expect((await thrown(async () => config.settings())).code).toBe("CLOUDPLATFORM_CONFIG_INVALID");
  });

  it("reads the pacing limits as positive numbers, and says what to fix in a bad one", async () => {
    const required = { "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey };
    config.configure({ ...required, "cloudplatform:maxRequestsPerSecond": "2.5" });
    process.env["CLOUDPLATFORM_MAX_CONCURRENT_REQUESTS"] = "4";
    expect(config.settings()).toMatchObject({ maxRequestsPerSecond: 2.5, maxConcurrentRequests: 4 });
    delete process.env["CLOUDPLATFORM_MAX_CONCURRENT_REQUESTS"];
    expect(config.settings()).not.toHaveProperty("maxConcurrentRequests");
    for (const [name, value] of [
      ["maxRequestsPerSecond", "0"],
      ["maxRequestsPerSecond", "-1"],
      ["maxRequestsPerSecond", "ten"],
      ["maxConcurrentRequests", "2.5"],
      ["maxConcurrentRequests", "0"],
    ] as const) {
      const bad = new ProviderConfig();
      bad.configure({ ...required, [`cloudplatform:${name}`]: value });
      const err = await thrown(async () => bad.settings());
      expect(err.code).toBe("CLOUDPLATFORM_CONFIG_INVALID");
      expect(err.message).toContain(`cloudplatform:${name} must be a positive`);
      expect(err.message).toContain(`not "${value}"`);
    }
  });

  it("lets the API key win over the token, warning once without showing either", () => {
    config.configure({
      "cloudplatform:baseUrl": base,
      "cloudplatform:apiKey": apiKey,
      "cloudplatform:token": token,
    });
    const warnings: string[] = [];
    expect(config.settings((m) => warnings.push(m)).auth.kind).toBe("apiKey");
    config.settings((m) => warnings.push(m));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain(apiKey);
    expect(warnings[0]).not.toContain(token);
  });

  it("uses a key the provider rotated over the configured one", () => {
    config.configure({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey });
    config.useRotatedApiKey("cp-rotatedKey0001");
    expect(config.settings().auth).toEqual({ kind: "apiKey", value: "cp-rotatedKey0001" });
  });
});
