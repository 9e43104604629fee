import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "../src/index.js";
import { call, createBucket, testOptions } from "./helpers.js";

// Management API over real HTTP: docs/api-contract.md §2–§6.
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator(testOptions());
});
afterAll(async () => {
  await emu.close();
});

describe("authentication (§2)", () => {
  it("accepts the raw API key and a Bearer JWT", async () => {
    expect(emu.apiKey).toMatch(/^cp-[A-Za-z0-9_-]+$/);
    expect((await call(emu, "GET", "/dns/zones")).status).toBe(200);
    expect((await call(emu, "GET", "/dns/zones", { auth: `Bearer ${emu.token}` })).status).toBe(200);
  });

  it.each([
    ["no header", null],
    ["an unknown key", "cp-notthekey"],
    ["a key with a scheme word", "ApiKey cp-abc"],
    ["an empty bearer", "Bearer "],
    ["a garbage bearer", "Bearer not.a.jwt"],
  ])("refuses %s with 401 unauthorized", async (_label, auth) => {
    const res = await call(emu, "GET", "/object-storage/buckets", { auth });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("unauthorized");
  });

  it("refuses an expired JWT and one signed with another secret", async () => {
    const expired = await emu.issueToken(-60);
    expect((await call(emu, "GET", "/dns/zones", { auth: `Bearer ${expired}` })).status).toBe(401);
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("cloudplatform-emulator")
      .setExpirationTime("1h")
      .sign(new TextEncoder().encode("a-secret-that-is-not-the-emulators-secret"));
    expect((await call(emu, "GET", "/dns/zones", { auth: `Bearer ${forged}` })).status).toBe(401);
    const fresh = await emu.issueToken(60);
    expect((await call(emu, "GET", "/dns/zones", { auth: `Bearer ${fresh}` })).status).toBe(200);
  });

  it("answers 401 before 404 so unknown paths reveal nothing", async () => {
    expect((await call(emu, "GET", "/no/such/path", { auth: null })).status).toBe(401);
    const known = await call(emu, "GET", "/no/such/path");
    expect(known.status).toBe(404);
    expect(known.body.error.code).toBe("not_found");
  });

  it("refuses a body over 1 MB with 413 too_large", async () => {
    const res = await call(emu, "POST", "/dns/zones", { body: { name: "x".repeat(1_100_000) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("too_large");
  });

  it("answers 405 for a known path with another method", async () => {
    const res = await call(emu, "DELETE", "/object-storage/buckets");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("POST");
  });
});

describe("POST /security/apikey (§3)", () => {
  it("rotates the key: the new one works, the old one fails at once, JWTs keep working", async () => {
    const old = emu.apiKey;
    const res = await call(emu, "POST", "/security/apikey", { auth: old });
    expect(res.status).toBe(200);
    expect(res.body.api_key).toMatch(/^cp-[A-Za-z0-9_-]{20,}$/);
    expect(res.body.api_key).not.toBe(old);
    expect(Date.parse(res.body.created_at)).not.toBeNaN();
    expect((await call(emu, "GET", "/dns/zones", { auth: old })).status).toBe(401);
    expect((await call(emu, "GET", "/dns/zones", { auth: res.body.api_key })).status).toBe(200);
    expect(emu.apiKey).toBe(res.body.api_key);
    expect((await call(emu, "GET", "/dns/zones", { auth: `Bearer ${emu.token}` })).status).toBe(200);
  });

  it("accepts {} and refuses unknown fields", async () => {
    expect((await call(emu, "POST", "/security/apikey", { body: {} })).status).toBe(200);
    const bad = await call(emu, "POST", "/security/apikey", { body: { name: "x" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("validation_error");
  });
});

describe("DNS zones (§4)", () => {
  it("creates, lists, filters, reads and deletes a zone", async () => {
    const created = await call(emu, "POST", "/dns/zones", { body: { name: "Example-Zone.COM." } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "example-zone.com", status: "active" });
    expect(created.body.id).toMatch(/^zone_/);
    expect(created.body.nameservers).toHaveLength(2);
    const id = created.body.id as string;

    const list = await call(emu, "GET", "/dns/zones");
    expect(list.body.map((z: { id: string }) => z.id)).toContain(id);
    const filtered = await call(emu, "GET", "/dns/zones?name=example-zone.com");
    expect(filtered.body).toEqual([created.body]);
    expect((await call(emu, "GET", "/dns/zones?name=other.com")).body).toEqual([]);

    expect((await call(emu, "GET", `/dns/zones/${id}`)).body).toEqual(created.body);
    expect((await call(emu, "DELETE", `/dns/zones/${id}`)).status).toBe(204);
    expect((await call(emu, "GET", `/dns/zones/${id}`)).status).toBe(404);
    expect((await call(emu, "DELETE", `/dns/zones/${id}`)).status).toBe(404);
  });

  it("refuses a duplicate name with 409 name_taken, stating the fact only", async () => {
    expect((await call(emu, "POST", "/dns/zones", { body: { name: "dup.example" } })).status).toBe(201);
    const dup = await call(emu, "POST", "/dns/zones", { body: { name: "DUP.example." } });
    expect(dup.status).toBe(409);
    // No advice: what to do differs by client (a dynamic resource cannot be imported); the client adds it.
    expect(dup.body.error).toEqual({ code: "name_taken", message: "a zone named dup.example already exists" });
  });

  it.each([
    ["localhost"],
    ["-bad.com"],
    ["bad-.com"],
    ["a..com"],
    ["exa mple.com"],
    ["bücher.de"],
    ["example.123"],
    [`${"a".repeat(64)}.com`],
  ])("refuses the zone name %s with 400", async (name) => {
    const res = await call(emu, "POST", "/dns/zones", { body: { name } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
    expect(res.body.error.message).toContain("name");
  });

  it("refuses bodies that are missing, not JSON or carry unknown fields", async () => {
    for (const body of [undefined, "{not json", { name: "a.com", extra: 1 }, { name: 5 }, []]) {
      const res = await call(emu, "POST", "/dns/zones", body === undefined ? {} : { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
    }
    const wrongType = await call(emu, "POST", "/dns/zones", {
      body: "name=a.com",
      headers: { "content-type": "text/plain" },
    });
    expect(wrongType.status).toBe(400);
  });
});

describe("buckets (§5)", () => {
  it("creates, lists, filters, reads and deletes a bucket", async () => {
    const created = await call(emu, "POST", "/object-storage/buckets", {
      body: { name: "media-01", storage_class: "Archive" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "media-01", storage_class: "Archive" });
    expect(created.body.id).toMatch(/^bkt_/);
    expect(Date.parse(created.body.created_at)).not.toBeNaN();
    const id = created.body.id as string;

    expect((await call(emu, "GET", "/object-storage/buckets")).body).toContainEqual(created.body);
    expect((await call(emu, "GET", "/object-storage/buckets?name=media-01")).body).toEqual([created.body]);
    expect((await call(emu, "GET", `/object-storage/buckets/${id}`)).body).toEqual(created.body);
    expect((await call(emu, "DELETE", `/object-storage/buckets/${id}`)).status).toBe(204);
    expect((await call(emu, "GET", `/object-storage/buckets/${id}`)).status).toBe(404);
    expect((await call(emu, "DELETE", `/object-storage/buckets/${id}`)).status).toBe(404);
  });

  it("defaults the storage class to Standard and refuses unknown classes", async () => {
    const res = await call(emu, "POST", "/object-storage/buckets", { body: { name: "default-class" } });
    expect(res.body.storage_class).toBe("Standard");
    const bad = await call(emu, "POST", "/object-storage/buckets", {
      body: { name: "bad-class", storage_class: "Glacier" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("storage_class");
  });

  it("refuses a taken name with 409 name_taken, stating the fact only", async () => {
    const first = await createBucket(emu, "taken");
    const dup = await call(emu, "POST", "/object-storage/buckets", {
      body: { name: first.name, storage_class: "Standard" },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toEqual({
      code: "name_taken",
      message: `a bucket named ${first.name} already exists on the platform`,
    });
  });

  it.each([
    ["ab"],
    ["a".repeat(64)],
    ["Upper"],
    ["under_score"],
    ["-start"],
    ["end-"],
    ["a..b"],
    ["192.168.5.4"],
    ["xn--abc"],
    ["sthree-abc"],
    ["abc-s3alias"],
    ["abc--ol-s3"],
  ])("refuses the bucket name %s with 400 validation_error", async (name) => {
    const res = await call(emu, "POST", "/object-storage/buckets", { body: { name, storage_class: "Standard" } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("validation_error");
  });

  it("accepts names at the limits of the rules", async () => {
    for (const name of ["abc", "a".repeat(63), "my.bucket-1", "1-2"]) {
      const res = await call(emu, "POST", "/object-storage/buckets", { body: { name, storage_class: "Standard" } });
      expect(res.status, name).toBe(201);
    }
  });

  it("deleting a bucket deletes its credentials", async () => {
    const bucket = await createBucket(emu);
    await call(emu, "POST", `/object-storage/buckets/${bucket.id}/credentials`);
    expect((await call(emu, "DELETE", `/object-storage/buckets/${bucket.id}`)).status).toBe(204);
    // Recreating the name gives a bucket with no credentials.
    const again = await call(emu, "POST", "/object-storage/buckets", {
      body: { name: bucket.name, storage_class: "Standard" },
    });
    expect(again.status).toBe(201);
    expect((await call(emu, "GET", `/object-storage/buckets/${again.body.id}/credentials`)).body).toEqual([]);
  });

  it("concurrent clients creating the same names get exactly one 201 per name", async () => {
    const names = Array.from({ length: 5 }, (_, i) => `race-${i}-${Date.now().toString(36)}`);
    const attempts = names.flatMap((name) =>
      Array.from({ length: 8 }, () =>
        call(emu, "POST", "/object-storage/buckets", { body: { name, storage_class: "Standard" } }),
      ),
    );
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r.status === 201)).toHaveLength(names.length);
    expect(results.filter((r) => r.status === 409)).toHaveLength(names.length * 7);
    const listed = (await call(emu, "GET", "/object-storage/buckets")).body as { name: string }[];
    for (const name of names) expect(listed.filter((b) => b.name === name)).toHaveLength(1);
  });
});

describe("concurrent clients", () => {
  it("create zones and credentials in parallel without duplicates", async () => {
    const zoneName = `par-${Date.now().toString(36)}.example`;
    const zones = await Promise.all(
      Array.from({ length: 10 }, () => call(emu, "POST", "/dns/zones", { body: { name: zoneName } })),
    );
    expect(zones.map((r) => r.status).sort()).toEqual([201, ...Array<number>(9).fill(409)]);

    const bucket = await createBucket(emu);
    const creds = await Promise.all(
      Array.from({ length: 20 }, () => call(emu, "POST", `/object-storage/buckets/${bucket.id}/credentials`)),
    );
    expect(creds.every((r) => r.status === 201)).toBe(true);
    const ids = new Set(creds.map((r) => r.body.access_key_id as string));
    expect(ids.size).toBe(20);
    expect((await call(emu, "GET", `/object-storage/buckets/${bucket.id}/credentials`)).body).toHaveLength(20);
  });
});

describe("credentials (§6)", () => {
  it("create shows the secret once; list never does", async () => {
    const bucket = await createBucket(emu);
    const created = await call(emu, "POST", `/object-storage/buckets/${bucket.id}/credentials`, { body: {} });
    expect(created.status).toBe(201);
    expect(created.body.access_key_id).toMatch(/^CPAK[A-Z0-9]{16}$/);
    expect(created.body.secret_access_key).toMatch(/^[A-Za-z0-9+]{40}$/);
    expect(created.body).toMatchObject({ active: true, bucket_id: bucket.id });
    const list = await call(emu, "GET", `/object-storage/buckets/${bucket.id}/credentials`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        access_key_id: created.body.access_key_id,
        active: true,
        bucket_id: bucket.id,
        created_at: created.body.created_at,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret_access_key);
  });

  it("deactivate and activate are idempotent and never show the secret", async () => {
    const bucket = await createBucket(emu);
    const { body: cred } = await call(emu, "POST", `/object-storage/buckets/${bucket.id}/credentials`);
    const base = `/object-storage/buckets/${bucket.id}/credentials/${cred.access_key_id}`;
    for (const [action, active] of [
      ["deactivate", false],
      ["deactivate", false],
      ["activate", true],
      ["activate", true],
    ] as const) {
      const res = await call(emu, "POST", `${base}/${action}`);
      expect(res.status).toBe(200);
      expect(res.body.active).toBe(active);
      expect(res.body.secret_access_key).toBeUndefined();
    }
    await call(emu, "POST", `${base}/deactivate`);
    expect((await call(emu, "GET", `/object-storage/buckets/${bucket.id}/credentials`)).body[0].active).toBe(false);
  });

  it("regenerate returns a new secret for the same id and keeps the active flag", async () => {
    const bucket = await createBucket(emu);
    const { body: cred } = await call(emu, "POST", `/object-storage/buckets/${bucket.id}/credentials`);
    const base = `/object-storage/buckets/${bucket.id}/credentials/${cred.access_key_id}`;
    await call(emu, "POST", `${base}/deactivate`);
    const res = await call(emu, "POST", `${base}/regenerate`);
    expect(res.status).toBe(200);
    expect(res.body.access_key_id).toBe(cred.access_key_id);
    expect(res.body.secret_access_key).toMatch(/^[A-Za-z0-9+]{40}$/);
    expect(res.body.secret_access_key).not.toBe(cred.secret_access_key);
    expect(res.body.active).toBe(false);
  });

  it("delete answers 204 then 404", async () => {
    const bucket = await createBucket(emu);
    const { body: cred } = await call(emu, "POST", `/object-storage/buckets/${bucket.id}/credentials`);
    const path = `/object-storage/buckets/${bucket.id}/credentials/${cred.access_key_id}`;
    expect((await call(emu, "DELETE", path)).status).toBe(204);
    expect((await call(emu, "DELETE", path)).status).toBe(404);
    expect((await call(emu, "GET", `/object-storage/buckets/${bucket.id}/credentials`)).body).toEqual([]);
  });

  it("answers 404 for an unknown bucket, an unknown key and a key of another bucket", async () => {
    const a = await createBucket(emu);
    const b = await createBucket(emu);
    const { body: cred } = await call(emu, "POST", `/object-storage/buckets/${a.id}/credentials`);
    const cases: [string, string][] = [
      ["POST", "/object-storage/buckets/bkt_unknown/credentials"],
      ["GET", "/object-storage/buckets/bkt_unknown/credentials"],
      ["POST", `/object-storage/buckets/${a.id}/credentials/CPAKUNKNOWN000000000/deactivate`],
      ["POST", `/object-storage/buckets/${b.id}/credentials/${cred.access_key_id}/deactivate`],
      ["POST", `/object-storage/buckets/${b.id}/credentials/${cred.access_key_id}/activate`],
      ["POST", `/object-storage/buckets/${b.id}/credentials/${cred.access_key_id}/regenerate`],
      ["DELETE", `/object-storage/buckets/${b.id}/credentials/${cred.access_key_id}`],
    ];
    for (const [method, path] of cases) {
      const res = await call(emu, method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error.code).toBe("not_found");
    }
    // The credential of bucket a is untouched by the refused calls.
    expect((await call(emu, "GET", `/object-storage/buckets/${a.id}/credentials`)).body[0].active).toBe(true);
  });

  it("refuses a body with fields on the bodiless endpoints", async () => {
    const bucket = await createBucket(emu);
    const res = await call(emu, "POST", `/object-storage/buckets/${bucket.id}/credentials`, { body: { name: "x" } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain("name");
  });
});
