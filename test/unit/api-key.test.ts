import nock from "nock";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../../provider/redact.js";
import { apiKeyCore } from "../../provider/resources/api-key/core.js";
import { apiKey, base, configureDefaults, ctx, thrown, token, useApi } from "./support.js";

const newKey = "cp-newKeyAfterRotation_000111";

describe("ApiKey", () => {
  useApi();

  it("checks rotateWhenChanged and refuses other properties", () => {
    expect(apiKeyCore.check(ctx(), undefined, { rotateWhenChanged: { a: "1" } })).toEqual({
      inputs: { rotateWhenChanged: { a: "1" } },
      failures: [],
    });
    expect(apiKeyCore.check(ctx(), undefined, { name: "x" }).failures[0]?.property).toBe("name");
  });

  it("creates with a random UUID id that is not the key", async () => {
    configureDefaults({ "cloudplatform:apiKey": "", "cloudplatform:token": token });
    nock(base).post("/security/apikey").reply(201, { apiKey: newKey, created_at: "2026-01-01T00:00:00Z" });
    const r = await apiKeyCore.create(ctx("k"), {});
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.id).not.toContain(newKey);
    expect(r.outs).toEqual({ key: newKey, secretFingerprint: fingerprint(newKey), createdAt: "2026-01-01T00:00:00Z" });
    // Authenticated with a token: nothing to switch.
    expect(ctx().settings.auth).toEqual({ kind: "token", value: token });
  });

  it("diffs only rotateWhenChanged, and rotates in place on change", async () => {
    const olds = { key: "cp-old-0000000", rotateWhenChanged: { v: "1" } };
    expect(apiKeyCore.diff(ctx(), "id", olds, { rotateWhenChanged: { v: "1" } }).changes).toBe(false);
    expect(apiKeyCore.diff(ctx(), "id", olds, { rotateWhenChanged: { v: "2" } })).toMatchObject({
      changes: true,
      replaces: [],
    });
    configureDefaults({ "cloudplatform:apiKey": "", "cloudplatform:token": token });
    nock(base).post("/security/apikey").reply(200, { key: newKey });
    expect(await apiKeyCore.update(ctx(), "id", olds, { rotateWhenChanged: { v: "2" } })).toEqual({
      key: newKey,
      secretFingerprint: fingerprint(newKey),
      rotateWhenChanged: { v: "2" },
    });
  });

  it("switches the provider to the new key when it rotated its own, and says how to update the config", async () => {
    nock(base, { reqheaders: { authorization: apiKey } })
      .post("/security/apikey")
      .reply(200, { api_key: newKey });
    nock(base, { reqheaders: { authorization: newKey } })
      .get("/dns/zones/z")
      .reply(200, { id: "z", name: "a.com" });
    const log = ctx("self");
    await apiKeyCore.update(
      log,
      "id",
      { key: apiKey, rotateWhenChanged: { v: "1" } },
      { rotateWhenChanged: { v: "2" } },
    );
    expect(ctx().settings.auth).toEqual({ kind: "apiKey", value: newKey });
    const warning = log.logs.find((l) => l.level === "warn")?.message ?? "";
    expect(warning).toContain("pulumi config set --secret cloudplatform:apiKey");
    expect(warning).not.toContain(newKey);
    // The next request of the run uses the new key (the nock above requires it).
    const { dnsZoneCore } = await import("../../provider/resources/dns-zone/core.js");
    await dnsZoneCore.read(ctx(), "z", { zoneId: "z", name: "a.com", nameservers: [], adopt: false, adopted: false });
  });

  it("says exactly what happened when a rotation of its own key lost its answer: rotated, new key unknown", async () => {
    // The old key is then refused: asking with it tells that the rotation happened.
    nock(base)
      .post("/security/apikey")
      .reply(502)
      .get("/dns/zones")
      .query(true)
      .reply(401, { error: { code: "unauthorized", message: "unknown key" } });
    const err = await thrown(() => apiKeyCore.create(ctx("k"), {}));
    expect(err.code).toBe("CLOUDPLATFORM_OUTCOME_UNKNOWN");
    expect(err.message).toContain("the platform rotated the project API key");
    expect(err.message).toContain("its answer, which carried the new key, was lost");
    expect(err.message).toContain("generate a key in the dashboard");
    expect(err.message).toContain("cloudplatform:token");
    expect(err.message).not.toContain(apiKey);
  });

  it("repeats a rotation of its own key whose answer was lost when the old key still works: it did not happen", async () => {
    nock(base).post("/security/apikey").reply(504);
    nock(base).get("/dns/zones").query(true).reply(200, []);
    nock(base).post("/security/apikey").reply(200, { api_key: newKey });
    const out = await apiKeyCore.create(ctx("k"), {});
    expect(out.outs.key).toBe(newKey);
  });

  it("repeats a lost rotation blindly when it authenticates with a token: the last key answered is the valid one", async () => {
    configureDefaults({ "cloudplatform:apiKey": "", "cloudplatform:token": token });
    nock(base)
      .post("/security/apikey")
      .reply(200, "<html>proxy</html>")
      .post("/security/apikey")
      .reply(200, { api_key: newKey });
    expect((await apiKeyCore.create(ctx("k"), {})).outs.key).toBe(newKey);
  });

  it("reads from state (no endpoint) and warns on delete that the key stays valid", async () => {
    const state = { key: newKey };
    expect(await apiKeyCore.read(ctx(), "id", state)).toEqual({ id: "id", outs: state, inputs: {} });
    const log = ctx("k");
    await apiKeyCore.delete(log, "id", state);
    expect(log.logs[0]).toMatchObject({ level: "warn" });
    expect(log.logs[0]?.message).toContain("stays valid");
  });
});
