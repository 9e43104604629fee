import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resetConfigState, resolveSettings, setConfiguredValues, useRotatedApiKey } from "../../provider/config.js";
import { configure } from "../../provider/dynamic.js";
import { apiKey, base, thrown, token } from "./support.js";

const envKeys = [
  "PULUMI_CONFIG",
  "CLOUDPLATFORM_BASE_URL",
  "CLOUDPLATFORM_S3_URL",
  "CLOUDPLATFORM_API_URL",
  "CLOUDPLATFORM_API_KEY",
  "CLOUDPLATFORM_TOKEN",
];
let saved: Record<string, string | undefined> = {};

describe("settings", () => {
  beforeEach(() => {
    saved = Object.fromEntries(envKeys.map((k) => [k, process.env[k]]));
    for (const k of envKeys) delete process.env[k];
    resetConfigState();
  });
  afterEach(() => {
    for (const k of envKeys) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
    resetConfigState();
  });

  it("prefers configure() values, then PULUMI_CONFIG, then the environment", () => {
    process.env["CLOUDPLATFORM_BASE_URL"] = "http://env.test";
    process.env["CLOUDPLATFORM_API_KEY"] = "cp-fromEnvironment";
    process.env["CLOUDPLATFORM_S3_URL"] = "http://s3-env.test";
    expect(resolveSettings()).toMatchObject({ baseUrl: "http://env.test", s3Url: "http://s3-env.test" });

    process.env["PULUMI_CONFIG"] = JSON.stringify({ "cloudplatform:baseUrl": "http://pulumi-config.test/" });
    expect(resolveSettings().baseUrl).toBe("http://pulumi-config.test");

    setConfiguredValues({ "cloudplatform:baseUrl": "http://configured.test", "cloudplatform:apiKey": apiKey });
    const s = resolveSettings();
    expect(s.baseUrl).toBe("http://configured.test");
    expect(s.auth).toEqual({ kind: "apiKey", value: apiKey });
    expect(s.s3Url).toBe("http://s3-env.test");
  });

  it("reads namespaced keys through the host's configure() request", async () => {
    const values: Record<string, string> = { "cloudplatform:baseUrl": base, "cloudplatform:token": token };
    await configure({ config: { get: (k: string) => values[k], require: (k: string) => values[k] as string } });
    expect(resolveSettings()).toMatchObject({ baseUrl: base, apiUrl: base, auth: { kind: "token", value: token } });
  });

  it("defaults apiUrl to baseUrl", () => {
    setConfiguredValues({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey });
    expect(resolveSettings().apiUrl).toBe(base);
    setConfiguredValues({
      "cloudplatform:baseUrl": base,
      "cloudplatform:apiKey": apiKey,
      "cloudplatform:apiUrl": "http://tx.test",
    });
    expect(resolveSettings().apiUrl).toBe("http://tx.test");
  });

  it("names both ways to set a missing setting", async () => {
    const noBase = await thrown(async () => resolveSettings());
    expect(noBase.code).toBe("CLOUDPLATFORM_CONFIG_MISSING");
    expect(noBase.message).toContain("pulumi config set cloudplatform:baseUrl");
    expect(noBase.message).toContain("CLOUDPLATFORM_BASE_URL");

    setConfiguredValues({ "cloudplatform:baseUrl": base });
    const noAuth = await thrown(async () => resolveSettings());
    expect(noAuth.message).toContain("pulumi config set --secret cloudplatform:apiKey");
    expect(noAuth.message).toContain("CLOUDPLATFORM_API_KEY");
    expect(noAuth.message).toContain("CLOUDPLATFORM_TOKEN");
  });

  it("refuses a URL that is not http(s)", async () => {
    setConfiguredValues({ "cloudplatform:baseUrl": "ftp://x", "cloudplatform:apiKey": apiKey });
    expect((await thrown(async () => resolveSettings())).code).toBe("CLOUDPLATFORM_CONFIG_INVALID");
  });

  it("lets the API key win over the token, warning once without showing either", () => {
    setConfiguredValues({
      "cloudplatform:baseUrl": base,
      "cloudplatform:apiKey": apiKey,
      "cloudplatform:token": token,
    });
    const warnings: string[] = [];
    expect(resolveSettings(undefined, (m) => warnings.push(m)).auth.kind).toBe("apiKey");
    resolveSettings(undefined, (m) => warnings.push(m));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).not.toContain(apiKey);
    expect(warnings[0]).not.toContain(token);
  });

  it("uses a key the provider rotated over the configured one", () => {
    setConfiguredValues({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey });
    useRotatedApiKey("cp-rotatedKey0001");
    expect(resolveSettings().auth).toEqual({ kind: "apiKey", value: "cp-rotatedKey0001" });
  });
});
