import nock from "nock";
import { describe, expect, it } from "vitest";
import type { ResourceCore } from "../../provider/contract.js";
import { toDynamicProvider } from "../../provider/dynamic.js";
import { NotFoundError, PartialCreateError } from "../../provider/errors.js";
import { registerSecret } from "../../provider/redact.js";
import { bucketCore } from "../../provider/resources/bucket/core.js";
import { bucketCredentialCore } from "../../provider/resources/bucket-credential/core.js";
import {
  apiKey,
  base,
  host,
  journal,
  recorder,
  s3,
  stack,
  stackJournal,
  testHost,
  thrown,
  useApi,
  type Logged,
} from "./support.js";
const providerText = "exports.handler = __f0; /* serialized shim */";

describe("dynamic host adapter", () => {
  useApi();
  // On the host of the running test: useApi makes a fresh one for each.
  const bucket = () => toDynamicProvider(bucketCore, host());

  it("hands the logical name to check, keeps it in inputs, and hides host keys from the core", async () => {
    const r = await bucket().check!({}, { __logicalName: "logs", __provider: providerText });
    expect(r.failures).toEqual([]);
    expect(r.inputs).toMatchObject({ __logicalName: "logs", storageClass: "Standard" });
    expect(r.inputs).not.toHaveProperty("__provider");
    expect(String(r.inputs["name"])).toMatch(/^logs-/);
  });

  it("reports no change for identical inputs even when __provider differs", async () => {
    const olds = {
      __logicalName: "logs",
      __provider: "old",
      name: "logs-1",
      storageClass: "Standard",
      forceDestroy: false,
      adopt: false,
      bucketId: "b",
    };
    const news = {
      __logicalName: "logs",
      __provider: "new",
      name: "logs-1",
      storageClass: "Standard",
      forceDestroy: false,
      adopt: false,
    };
    expect(await bucket().diff!("b", olds, news)).toEqual({ changes: false, replaces: [], deleteBeforeReplace: false });
  });

  it("returns plain JSON outputs with the logical name, and prefixes errors with the resource", async () => {
    nock(base).post("/object-storage/buckets").reply(201, { id: "bkt_1", name: "logs-1" });
    const r = await bucket().create({
      __logicalName: "logs",
      name: "logs-1",
      storageClass: "Standard",
      forceDestroy: false,
      adopt: false,
    });
    expect(r.id).toBe("bkt_1");
    expect(Object.values(r.outs).includes(undefined)).toBe(false);
    expect(r.outs).toMatchObject({ __logicalName: "logs", s3Endpoint: s3, region: "us-east-1" });

    nock(base)
      .post("/object-storage/buckets")
      .reply(409, { error: { code: "name_taken" } });
    const err = await thrown(() =>
      bucket().create({
        __logicalName: "logs",
        name: "logs-1",
        storageClass: "Standard",
        forceDestroy: false,
        adopt: false,
      }),
    );
    expect(err.message).toMatch(/^Bucket "logs": POST \/object-storage\/buckets failed with 409 name_taken/);
  });

  it("fails a call with a message the host's `${err}: ${err.stack}` line says once (issue 37)", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(401, { error: { code: "unauthorized" } });
    const err = await thrown(() =>
      bucket().read!("bkt_1", { __logicalName: "logs", name: "logs-1", bucketId: "bkt_1" }),
    );
    // What @pulumi/pulumi's hosts print on stderr for a failed call.
    const [line, ...frames] = `${String(err)}: ${err.stack ?? ""}`.split("\n");
    expect(line?.split("(CLOUDPLATFORM_UNAUTHORIZED)").length).toBe(2);
    expect(frames.every((frame) => frame.startsWith("    at "))).toBe(true);
  });

  it("reads a gone object as an empty id", async () => {
    nock(base).get("/object-storage/buckets/bkt_1").reply(404).get("/object-storage/buckets").reply(200, []);
    expect(await bucket().read!("bkt_1", { __logicalName: "logs", name: "logs-1", bucketId: "bkt_1" })).toEqual({
      id: "",
      props: {},
    });
  });

  it("turns a partial create into the engine's { id, properties, reasons } with __provider kept", async () => {
    const cred = toDynamicProvider(bucketCredentialCore, host());
    const secret = "PartialSecret-0123456789abc";
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get("/object-storage/buckets/bkt_1/credentials")
      .reply(200, [])
      .post("/object-storage/buckets/bkt_1/credentials")
      .reply(201, { access_key_id: "AK1", secret_access_key: secret })
      .post("/object-storage/buckets/bkt_1/credentials/AK1/deactivate")
      .times(4)
      .reply(503);
    const err = await thrown(() =>
      cred.create({ __logicalName: "w", __provider: providerText, bucketId: "bkt_1", active: false }),
    );
    expect(err["id"]).toBe("AK1");
    expect(err["properties"]).toMatchObject({
      __provider: providerText,
      __logicalName: "w",
      secretAccessKey: secret,
      active: true,
    });
    expect(err["reasons"]).toHaveLength(1);
    expect(err.message).toMatch(/^BucketCredential "w": /);
    expect(err.message).not.toContain(secret);
  });

  it("carries the stack a state written before the provider text named it holds, for the stack's journal", async () => {
    const b = bucket();
    const checked = await b.check!({}, { __logicalName: "logs", __stack: stack, __provider: providerText });
    expect(checked.inputs).toMatchObject({ __logicalName: "logs", __stack: stack });
    nock(base)
      .post("/object-storage/buckets")
      .reply(201, { id: "bkt_1", name: String(checked.inputs["name"]) });
    const made = await b.create({ ...checked.inputs, __provider: providerText });
    expect(made.outs).toMatchObject({ __stack: stack });
    expect(journal().find("Bucket", "logs", base)).toMatchObject({ state: "created", id: "bkt_1" });
    // The next run's diff of it proves the state holds it: the entry has done its job.
    await b.diff!("bkt_1", made.outs, { ...checked.inputs, __provider: providerText });
    expect(journal().find("Bucket", "logs", base)).toBeUndefined();
  });

  it("keeps a state written before the stack was passed free of it", async () => {
    const checked = await bucket().check!({ __logicalName: "logs", name: "logs-1" }, { __logicalName: "logs" });
    expect(checked.inputs).not.toHaveProperty("__stack");
  });

  it("redacts the provider's own lines, debug ones included (what --debug shows of it)", () => {
    const logs: Logged[] = [];
    const h = testHost({ logger: recorder(logs) });
    h.configure({ "cloudplatform:baseUrl": base, "cloudplatform:apiKey": apiKey });
    const c = h.context("Bucket", "logs");
    // Settings are read (and their secrets registered) when a call first needs them.
    expect(c.settings.auth.value).toBe(apiKey);
    c.log.debug(`request with ${apiKey}`);
    c.log.info(`answer with ${apiKey}`);
    expect(logs.map((l) => l.message)).toEqual([
      'Bucket "logs": request with [redacted]',
      'Bucket "logs": answer with [redacted]',
    ]);
  });

  it("maps a partial update the same way", async () => {
    const core = thing(async () => {
      throw new PartialCreateError("x", { a: "half" }, new Error("second step failed"));
    });
    const err = await thrown(() =>
      toDynamicProvider(core, host()).update!(
        "x",
        { a: "1" },
        { a: "2", __provider: providerText, __logicalName: "t" },
      ),
    );
    expect(err).toMatchObject({ id: "x", properties: { a: "half", __provider: providerText, __logicalName: "t" } });
    expect(err.message).toContain('Thing "t": second step failed');
  });

  it("names the resource in an error once, with no secret, whether the error is one of ours or not", async () => {
    const update = (failure: Error) => () =>
      thrown(() =>
        toDynamicProvider(
          thing(async () => {
            throw failure;
          }),
          host(),
        ).update!("x", { a: "1" }, { a: "2", __logicalName: "t" }),
      );
    const ours = new NotFoundError("no object late-secret-HOST1", "Check it.").forResource("Thing", "t");
    registerSecret("late-secret-HOST1");
    const annotated = await update(ours)();
    expect(annotated).toBeInstanceOf(NotFoundError);
    expect(annotated.message).toBe('Thing "t": no object [redacted] (CLOUDPLATFORM_NOT_FOUND). Check it.');
    const other = new TypeError("cannot read late-secret-HOST1");
    expect((await update(other)()).message).toBe('Thing "t": cannot read [redacted]');
    expect(other.message).toBe("cannot read late-secret-HOST1");
  });
});

/** A core of one string field whose update is `update`. */
function thing(update: () => Promise<{ a: string }>): ResourceCore<{ a: string }, { a: string }> {
  return {
    table: {
      type: "Thing",
      description: "A thing.",
      fields: { a: { kind: "string", input: "program", description: "A." } },
    },
    check: (_c, _o, n) => ({ inputs: { a: String(n["a"]) }, failures: [] }),
    diff: () => ({ changes: true, replaces: [], changed: ["a"], deleteBeforeReplace: false }),
    create: async () => ({ id: "x", outs: { a: "1" } }),
    read: async () => ({}),
    update,
    delete: async () => undefined,
  };
}

describe("the provider of a resource its provider text names", () => {
  useApi();
  const text = "exports.handler=()=>require(...).of(...)";
  const logs = () => toDynamicProvider(bucketCore, host(), { name: "logs", journal: stackJournal });

  it("names the resource and keeps its stack's journal through check, create, read and delete, with no host key in any bag", async () => {
    const b = logs();
    const checked = await b.check!({}, { __provider: text, storageClass: "Standard" });
    expect(Object.keys(checked.inputs).filter((k) => k.startsWith("__"))).toEqual([]);
    expect(String(checked.inputs["name"])).toMatch(/^logs-[a-z0-9]{7}$/);
    nock(base)
      .post("/object-storage/buckets")
      .reply(201, { id: "bkt_1", name: String(checked.inputs["name"]) });
    const made = await b.create({ ...checked.inputs, __provider: text });
    expect(Object.keys(made.outs).filter((k) => k.startsWith("__"))).toEqual([]);
    expect(journal().find("Bucket", "logs", base)).toMatchObject({ state: "created", id: "bkt_1" });
    // A refresh gets only the state: the text alone tells it which journal entry the state now holds.
    nock(base)
      .get("/object-storage/buckets")
      .reply(200, [{ id: "bkt_1", name: checked.inputs["name"], storage_class: "Standard" }]);
    const read = await b.read!("bkt_1", { ...made.outs, __provider: text });
    expect(read.id).toBe("bkt_1");
    expect(Object.keys(read.props ?? {}).filter((k) => k.startsWith("__"))).toEqual([]);
    expect(journal().find("Bucket", "logs", base)).toBeUndefined();
    nock(base)
      .delete("/object-storage/buckets/bkt_1")
      .reply(409, { error: { code: "bucket_not_empty" } });
    const err = await thrown(() => b.delete!("bkt_1", { ...made.outs, __provider: text }));
    expect(err.message).toMatch(/^Bucket "logs": DELETE \/object-storage\/buckets\/bkt_1 failed with 409/);
  });

  it("takes over a state written with host keys: the text's name wins, and the keys are not written again", async () => {
    const olds = {
      __logicalName: "logs",
      __stack: stack,
      __provider: 'exports.handler = () => require("pulumi-cloudplatform/shims/bucketProvider");\n',
      name: "logs-1",
      storageClass: "Standard",
      forceDestroy: false,
      adopt: false,
      bucketId: "bkt_1",
      s3Endpoint: s3,
      region: "us-east-1",
      adopted: false,
    };
    const news = { __provider: text, name: "logs-1", storageClass: "Standard", forceDestroy: true, adopt: false };
    const b = logs();
    expect(await b.diff!("bkt_1", olds, news)).toMatchObject({ changes: true, replaces: [] });
    const updated = await b.update!("bkt_1", olds, news);
    expect(updated.outs).toMatchObject({ bucketId: "bkt_1", forceDestroy: true });
    expect(Object.keys(updated.outs ?? {}).filter((k) => k.startsWith("__"))).toEqual([]);
  });

  it("is what providerFor serves, by type name; an unknown type is refused with the known ones", async () => {
    const { providerFor } = await import("../../provider/dynamic.js");
    expect(typeof providerFor("BucketCredential", "w", stackJournal).create).toBe("function");
    let thrownError: (Error & { code?: string }) | undefined;
    try {
      providerFor("Database", "db");
    } catch (err) {
      thrownError = err as Error & { code?: string };
    }
    expect(thrownError?.code).toBe("CLOUDPLATFORM_UNKNOWN_TYPE");
    expect(thrownError?.message).toContain("BucketCredential");
  });
});
