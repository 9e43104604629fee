import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEmulator } from "../src/index.js";
import { StateError, StateStore } from "../src/state.js";
import { call, createBucket, testOptions } from "./helpers.js";

// Durable state with --data-dir (issue 3 "persistence across a restart").
const dirs: string[] = [];
const newDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "emu-persist-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("persistence", () => {
  it("a restart with the same data dir keeps the key, JWT secret, zones, buckets and credentials", async () => {
    const dataDir = newDir();
    const first = await startEmulator(testOptions({ dataDir }));
    const rotated = (await call(first, "POST", "/security/apikey")).body.api_key as string;
    const bucket = await createBucket(first);
    const zone = (await call(first, "POST", "/dns/zones", { body: { name: "persist.example" } })).body;
    const cred = (await call(first, "POST", `/object-storage/buckets/${bucket.id}/credentials`)).body;
    await call(first, "POST", `/object-storage/buckets/${bucket.id}/credentials/${cred.access_key_id}/deactivate`);
    const token = first.token;
    await first.close();

    const second = await startEmulator(testOptions({ dataDir }));
    try {
      expect(second.apiKey).toBe(rotated);
      expect((await call(second, "GET", "/dns/zones", { auth: rotated })).body).toEqual([zone]);
      expect((await call(second, "GET", "/dns/zones", { auth: `Bearer ${token}` })).status).toBe(200);
      expect((await call(second, "GET", `/object-storage/buckets/${bucket.id}`)).body).toEqual(bucket);
      expect((await call(second, "GET", `/object-storage/buckets/${bucket.id}/credentials`)).body).toEqual([
        { access_key_id: cred.access_key_id, active: false, bucket_id: bucket.id, created_at: cred.created_at },
      ]);
      const dup = await call(second, "POST", "/object-storage/buckets", {
        body: { name: bucket.name, storage_class: "Standard" },
      });
      expect(dup.status).toBe(409);
    } finally {
      await second.close();
    }
  });

  it("writes the state file atomically, owner-readable only, with no leftover temp file", async () => {
    const dataDir = newDir();
    const emu = await startEmulator(testOptions({ dataDir }));
    try {
      await createBucket(emu);
      const file = join(dataDir, "state.json");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(readFileSync(file, "utf8"));
      expect(saved.version).toBe(1);
      expect(saved.buckets).toHaveLength(1);
      expect(readdirSync(dataDir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    } finally {
      await emu.close();
    }
  });

  it("refuses a corrupt or foreign state file with a clear error", () => {
    const dataDir = newDir();
    const file = join(dataDir, "state.json");
    writeFileSync(file, "{broken");
    expect(() => StateStore.open(file)).toThrow(StateError);
    writeFileSync(file, JSON.stringify({ version: 2 }));
    expect(() => StateStore.open(file)).toThrow(/another version/);
  });

  it("without a data dir nothing survives and the temporary directory is removed", async () => {
    const a = await startEmulator(testOptions());
    await createBucket(a);
    const keyA = a.apiKey;
    expect(existsSync(a.dataDir)).toBe(true);
    await a.close();
    expect(existsSync(a.dataDir)).toBe(false);
    const b = await startEmulator(testOptions());
    try {
      expect(b.apiKey).not.toBe(keyA);
      expect((await call(b, "GET", "/object-storage/buckets")).body).toEqual([]);
    } finally {
      await b.close();
    }
  });
});
