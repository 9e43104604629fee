// docs/api-contract.md §2.4: every create ends in one object, whatever became of its answer, within
// one run (lost, unreadable) and across an interrupted one (the recovery journal).
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import { describe, expect, it } from "vitest";
import { bucketCore } from "../../provider/resources/bucket/core.js";
import { bucketCredentialCore } from "../../provider/resources/bucket-credential/core.js";
import { dnsZoneCore } from "../../provider/resources/dns-zone/core.js";
import { apiKey, base, ctx, journal, thrown, useApi, type Logged } from "./support.js";

const bucketInputs = { name: "logs-abcdefg", storageClass: "Standard", forceDestroy: false, adopt: false };
const creds = "/object-storage/buckets/bkt_1/credentials";
const secret = (n: number) => `SecretAccessKey-${n}-0123456789abcdef`;

/** A context of the test's stack: the journal of the test is the stack's. */
const call = (name: string, type: string, logs: Logged[] = []) => ctx(name, logs, type, true);

/**
 * A create of `collection` refused with `409 name_taken`, and the list by that name showing `found`
 * (what the create looks up when it may adopt).
 */
function nameTaken(collection: string, name: string, found: object[]): void {
  nock(base)
    .post(collection)
    .reply(409, { error: { code: "name_taken" } })
    .get(collection)
    .query({ name })
    .reply(200, found);
}

/** Creates bucket bkt_1 in this process, answered: its credentials need no read before their creates. */
async function bucketMadeHere(): Promise<void> {
  nock(base).post("/object-storage/buckets").reply(201, { id: "bkt_1", name: "logs-abcdefg" });
  await bucketCore.create(call("logs", "Bucket"), bucketInputs);
}

describe("exactly once within a run", () => {
  useApi();

  it("costs one request per create: a credential of a bucket made in this process needs no read first", async () => {
    await bucketMadeHere();
    nock(base)
      .post(creds)
      .reply(201, { access_key_id: "AK1", secret_access_key: secret(1) });
    nock(base)
      .post(creds)
      .reply(201, { access_key_id: "AK2", secret_access_key: secret(2) });
    const a = await bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true });
    const b = await bucketCredentialCore.create(call("b", "BucketCredential"), { bucketId: "bkt_1", active: true });
    // No GET was mocked: any read would have failed the test (nock refuses it).
    expect([a.id, b.id]).toEqual(["AK1", "AK2"]);
    expect(a.outs.bucketName).toBe("logs-abcdefg");
  });

  it("finds the credential a create with a lost answer made, and regenerates its lost secret", async () => {
    await bucketMadeHere();
    nock(base)
      .post(creds)
      .reply(504)
      .get(creds)
      .reply(200, [{ access_key_id: "AK1", active: true }])
      .post(`${creds}/AK1/regenerate`)
      .reply(200, { access_key_id: "AK1", secret_access_key: secret(9), active: true });
    const logs: Logged[] = [];
    const r = await bucketCredentialCore.create(call("a", "BucketCredential", logs), {
      bucketId: "bkt_1",
      active: true,
    });
    expect(r.outs).toMatchObject({ accessKeyId: "AK1", secretAccessKey: secret(9) });
    expect(logs.map((l) => l.message).join("\n")).toMatch(
      /answer to the create of credential AK1 was lost; its secret was regenerated/,
    );
  });

  it("keeps names and ids in the journal, never a secret: neither the S3 secrets nor the API key", async () => {
    await bucketMadeHere();
    nock(base)
      .post(creds)
      .reply(201, { access_key_id: "AK1", secret_access_key: secret(1) })
      .post(creds)
      .reply(504)
      .get(creds)
      .reply(200, [
        { access_key_id: "AK1", active: true },
        { access_key_id: "AK2", active: true },
      ])
      .post(`${creds}/AK2/regenerate`)
      .reply(200, { access_key_id: "AK2", secret_access_key: secret(2), active: true });
    await bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true });
    await bucketCredentialCore.create(call("b", "BucketCredential"), { bucketId: "bkt_1", active: true });
    const files = readdirSync(journal().dir, { recursive: true, encoding: "utf8" })
      .map((f) => join(journal().dir, f))
      .filter((f) => statSync(f).isFile());
    const written = files.map((f) => readFileSync(f, "utf8")).join("\n");
    // The journal did record these creates (so the check below looks at something).
    expect(written).toContain("AK1");
    expect(written).toContain("bkt_1");
    for (const value of [secret(1), secret(2), apiKey]) expect(written).not.toContain(value);
  });

  it("does the same for a 2xx answer it cannot read", async () => {
    await bucketMadeHere();
    nock(base)
      .post(creds)
      .reply(201, "<html>upstream</html>")
      .get(creds)
      .reply(200, [{ access_key_id: "AK1" }])
      .post(`${creds}/AK1/regenerate`)
      .reply(200, { access_key_id: "AK1", secret_access_key: secret(9) });
    const r = await bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true });
    expect(r.outs.secretAccessKey).toBe(secret(9));
  });

  it("repeats the create when the bucket shows nothing new: the lost request was not processed", async () => {
    await bucketMadeHere();
    nock(base)
      .post(creds)
      .reply(502)
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(201, { access_key_id: "AK1", secret_access_key: secret(1) });
    expect(
      (await bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true })).id,
    ).toBe("AK1");
  });

  it("compares with what the bucket held before, read once when this process does not know it", async () => {
    nock(base)
      .get("/object-storage/buckets/bkt_1")
      .reply(200, { id: "bkt_1", name: "logs" })
      .get(creds)
      .reply(200, [{ access_key_id: "AK0" }])
      .post(creds)
      .reply(504)
      .get(creds)
      .reply(200, [{ access_key_id: "AK0" }, { access_key_id: "AK1" }])
      .post(`${creds}/AK1/regenerate`)
      .reply(200, { access_key_id: "AK1", secret_access_key: secret(1) });
    expect(
      (await bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true })).id,
    ).toBe("AK1");
  });

  it("fails, naming them, when more than one credential appeared: it cannot tell which is its own", async () => {
    await bucketMadeHere();
    nock(base)
      .post(creds)
      .reply(504)
      .get(creds)
      .reply(200, [{ access_key_id: "AK1" }, { access_key_id: "AKX" }]);
    const err = await thrown(() =>
      bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true }),
    );
    expect(err.code).toBe("CLOUDPLATFORM_OUTCOME_UNKNOWN");
    expect(err.message).toContain("AK1, AKX");
    expect(err.message).toContain("the platform gives a create no key to find it by");
    // Forgotten: once the user deleted the candidate no one holds (AK1), the next up creates anew
    // rather than taking the other creator's AKX for its own.
    expect(journal().find("BucketCredential", "a", base)).toBeUndefined();
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AKX" }])
      .post(creds)
      .reply(201, { access_key_id: "AK2", secret_access_key: secret(2) });
    const next = await bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true });
    expect(next.id).toBe("AK2");
  });

  it("creates one bucket's credentials one at a time, so that the new one is always its own", async () => {
    await bucketMadeHere();
    const events: string[] = [];
    nock(base)
      .post(creds)
      .delay(50)
      .reply(() => {
        events.push("first answered");
        return [201, { access_key_id: "AK1", secret_access_key: secret(1) }];
      })
      .post(creds)
      .reply(() => {
        events.push("second sent");
        return [201, { access_key_id: "AK2", secret_access_key: secret(2) }];
      });
    const both = await Promise.all([
      bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true }),
      bucketCredentialCore.create(call("b", "BucketCredential"), { bucketId: "bkt_1", active: true }),
    ]);
    expect(events).toEqual(["first answered", "second sent"]);
    expect(both.map((r) => r.id)).toEqual(["AK1", "AK2"]);
  });

  it("reads the bucket again after a create whose outcome stayed unknown", async () => {
    await bucketMadeHere();
    nock(base).post(creds).times(4).reply(504).get(creds).times(4).reply(200, []);
    await thrown(() => bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true }));
    // The journal keeps what the bucket held before, for the next run.
    expect(journal().find("BucketCredential", "a", base)).toMatchObject({ state: "creating", before: [] });
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AKLATE" }])
      .post(creds)
      .reply(201, { access_key_id: "AK2", secret_access_key: secret(2) });
    await bucketCredentialCore.create(call("b", "BucketCredential"), { bucketId: "bkt_1", active: true });
    expect(journal().find("BucketCredential", "b", base)).toMatchObject({ before: ["AKLATE"], id: "AK2" });
  });

  it("takes a bucket found by name after a lost answer as possibly an earlier run's: its credentials are read", async () => {
    nock(base)
      .post("/object-storage/buckets")
      .reply(504)
      .get("/object-storage/buckets")
      .query({ name: "logs-abcdefg" })
      .reply(200, [{ id: "bkt_1", name: "logs-abcdefg" }])
      .get(creds)
      .reply(200, [])
      .post(creds)
      .reply(201, { access_key_id: "AK1", secret_access_key: secret(1) });
    await bucketCore.create(call("logs", "Bucket"), bucketInputs);
    await bucketCredentialCore.create(call("a", "BucketCredential"), { bucketId: "bkt_1", active: true });
  });
});

describe("a bucket or zone after an interrupted run", () => {
  useApi();

  it("records the create before it is sent, and the id once answered", async () => {
    nock(base)
      .post("/object-storage/buckets")
      .reply(() => {
        expect(journal().find("Bucket", "logs", base)).toMatchObject({ state: "creating", objectName: "logs-abcdefg" });
        return [201, { id: "bkt_1", name: "logs-abcdefg" }];
      });
    await bucketCore.create(call("logs", "Bucket"), bucketInputs);
    expect(journal().find("Bucket", "logs", base)).toMatchObject({ state: "created", id: "bkt_1" });
  });

  it("draws again the name its interrupted create drew, and only a name it could have drawn", () => {
    journal().creating("Bucket", "logs", base, { objectName: "logs-q1w2e3r" });
    expect(bucketCore.check(call("logs", "Bucket"), undefined, {}).inputs.name).toBe("logs-q1w2e3r");
    // Another stack, another platform, or a name the program gave: a fresh name.
    expect(bucketCore.check(ctx("logs"), undefined, {}).inputs.name).not.toBe("logs-q1w2e3r");
    journal().creating("Bucket", "other", base, { objectName: "given-name" });
    expect(bucketCore.check(call("other", "Bucket"), undefined, {}).inputs.name).toMatch(/^other-[a-z0-9]{7}$/);
  });

  it("adopts the bucket its interrupted create made, without adopt: true", async () => {
    journal().creating("Bucket", "logs", base, { objectName: "logs-abcdefg" });
    nameTaken("/object-storage/buckets", "logs-abcdefg", [
      { id: "bkt_1", name: "logs-abcdefg", created_at: new Date().toISOString() },
    ]);
    const logs: Logged[] = [];
    const r = await bucketCore.create(call("logs", "Bucket", logs), bucketInputs);
    expect(r).toMatchObject({ id: "bkt_1", outs: { adopted: false, bucketId: "bkt_1" } });
    expect(logs[0]?.message).toContain("that an interrupted run of this stack created");
    expect(journal().find("Bucket", "logs", base)).toMatchObject({ state: "created", id: "bkt_1" });
  });

  it("adopts by the id the journal recorded when the create was answered but the state not saved", async () => {
    journal().created("Bucket", "logs", base, "bkt_1", { objectName: "logs-abcdefg" });
    nameTaken("/object-storage/buckets", "logs-abcdefg", [
      { id: "bkt_1", name: "logs-abcdefg", created_at: "2020-01-01T00:00:00Z" },
    ]);
    expect((await bucketCore.create(call("logs", "Bucket"), bucketInputs)).id).toBe("bkt_1");
  });

  it("does not adopt a bucket older than its interrupted create: the name is someone else's", async () => {
    journal().creating("Bucket", "logs", base, { objectName: "logs-abcdefg" });
    nameTaken("/object-storage/buckets", "logs-abcdefg", [
      { id: "bkt_9", name: "logs-abcdefg", created_at: "2020-01-01T00:00:00Z" },
    ]);
    const err = await thrown(() => bucketCore.create(call("logs", "Bucket"), bucketInputs));
    expect(err.code).toBe("CLOUDPLATFORM_CONFLICT");
    expect(err.message).toContain("set adopt: true");
    expect(err.message).toContain("cannot be `pulumi import`ed");
    // The next check draws a fresh name instead of the one someone else holds.
    expect(journal().find("Bucket", "logs", base)).toBeUndefined();
  });

  it("adopts the zone its interrupted create made", async () => {
    journal().creating("DnsZone", "site", base, { objectName: "example.com" });
    nameTaken("/dns/zones", "example.com", [{ id: "zone_1", name: "example.com", nameservers: [] }]);
    const r = await dnsZoneCore.create(call("site", "DnsZone"), { name: "example.com", adopt: false });
    expect(r).toMatchObject({ id: "zone_1", outs: { adopted: false } });
  });

  it("does not look a taken zone up when nothing says it may be adopted, and says what to do", async () => {
    nock(base)
      .post("/dns/zones")
      .reply(409, { error: { code: "name_taken", message: "a zone named example.com already exists" } });
    const err = await thrown(() => dnsZoneCore.create(call("site", "DnsZone"), { name: "example.com", adopt: false }));
    expect(err.message).toContain("set adopt: true");
    expect(err.message).not.toContain("import it");
  });

  it("adopts an existing zone with adopt: true, and refuses when the name is not the project's", async () => {
    // Looked up first: an existing zone is taken over without a create.
    nock(base)
      .get("/dns/zones")
      .query({ name: "example.com" })
      .reply(200, [{ id: "zone_7", name: "example.com", nameservers: ["ns1"] }]);
    const r = await dnsZoneCore.create(call("site", "DnsZone"), { name: "example.com", adopt: true });
    expect(r).toMatchObject({ id: "zone_7", outs: { adopt: true, adopted: true, nameservers: ["ns1"] } });
    // Not in the project's list, yet taken: someone else's.
    nock(base).get("/dns/zones").query({ name: "example.com" }).reply(200, []);
    nameTaken("/dns/zones", "example.com", []);
    const err = await thrown(() => dnsZoneCore.create(call("site", "DnsZone"), { name: "example.com", adopt: true }));
    expect(err.message).toContain("taken by a zone outside this project");
  });
});

describe("a credential after an interrupted run", () => {
  useApi();
  const bucketKnown = () => nock(base).get("/object-storage/buckets/bkt_1").reply(200, { id: "bkt_1", name: "logs" });
  const inputs = { bucketId: "bkt_1", active: true };

  it("adopts the credential whose create was answered but not saved in the state, regenerating its secret", async () => {
    journal().created("BucketCredential", "a", base, "AK1", { bucketId: "bkt_1", before: [] });
    bucketKnown();
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AK1", active: true }])
      .post(`${creds}/AK1/regenerate`)
      .reply(200, { access_key_id: "AK1", secret_access_key: secret(5), active: true });
    const logs: Logged[] = [];
    const r = await bucketCredentialCore.create(call("a", "BucketCredential", logs), inputs);
    expect(r.outs).toMatchObject({ accessKeyId: "AK1", secretAccessKey: secret(5), active: true });
    expect(logs[0]?.message).toContain("adopted the credential AK1 that an interrupted run of this stack created");
  });

  it("adopts the one credential that appeared after its interrupted create started, not others' credentials", async () => {
    // a's create was sent and the run killed; the next run created b (the bucket then held AK0 and a's AK1).
    journal().creating("BucketCredential", "a", base, { bucketId: "bkt_1", before: ["AK0"] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    journal().created("BucketCredential", "b", base, "AKB", { bucketId: "bkt_1", before: ["AK0", "AK1"] });
    bucketKnown();
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AK0" }, { access_key_id: "AKB" }, { access_key_id: "AK1" }])
      .post(`${creds}/AK1/regenerate`)
      .reply(200, { access_key_id: "AK1", secret_access_key: secret(1), active: true });
    expect((await bucketCredentialCore.create(call("a", "BucketCredential"), inputs)).id).toBe("AK1");
  });

  it("tells two interrupted creates of one bucket apart by when each started", async () => {
    // a started first (the bucket held nothing), b next (the bucket held AKA, a's); both lost their answers.
    journal().creating("BucketCredential", "a", base, { bucketId: "bkt_1", before: [] });
    await new Promise((resolve) => setTimeout(resolve, 5));
    journal().creating("BucketCredential", "b", base, { bucketId: "bkt_1", before: ["AKA"] });
    const listed = [
      { access_key_id: "AKA", active: true },
      { access_key_id: "AKB", active: true },
    ];
    bucketKnown();
    nock(base)
      .get(creds)
      .times(2)
      .reply(200, listed)
      .post(`${creds}/AKB/regenerate`)
      .reply(200, { access_key_id: "AKB", secret_access_key: secret(2) })
      .post(`${creds}/AKA/regenerate`)
      .reply(200, { access_key_id: "AKA", secret_access_key: secret(1) });
    expect((await bucketCredentialCore.create(call("b", "BucketCredential"), inputs)).id).toBe("AKB");
    expect((await bucketCredentialCore.create(call("a", "BucketCredential"), inputs)).id).toBe("AKA");
  });

  it("creates a credential when its interrupted create made none", async () => {
    journal().creating("BucketCredential", "a", base, { bucketId: "bkt_1", before: ["AK0"] });
    bucketKnown();
    nock(base)
      .get(creds)
      .times(2)
      .reply(200, [{ access_key_id: "AK0" }])
      .post(creds)
      .reply(201, { access_key_id: "AK1", secret_access_key: secret(1) });
    expect((await bucketCredentialCore.create(call("a", "BucketCredential"), inputs)).id).toBe("AK1");
  });

  it("activates an adopted credential that was deactivated, as the program asks", async () => {
    journal().created("BucketCredential", "a", base, "AK1", { bucketId: "bkt_1" });
    bucketKnown();
    nock(base)
      .get(creds)
      .reply(200, [{ access_key_id: "AK1", active: false }])
      .post(`${creds}/AK1/regenerate`)
      .reply(200, { access_key_id: "AK1", secret_access_key: secret(1), active: false })
      .post(`${creds}/AK1/activate`)
      .reply(200, { access_key_id: "AK1", active: true });
    expect((await bucketCredentialCore.create(call("a", "BucketCredential"), inputs)).outs.active).toBe(true);
  });
});
