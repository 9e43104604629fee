import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { z } from "zod";
import { newApiKey, newJwtSecret } from "./ids.js";
import { STORAGE_CLASSES } from "./names.js";

/**
 * The management state: API key, JWT signing secret, zones, buckets and credentials.
 * With a file it is durable: every mutation rewrites the whole file atomically (temp file,
 * fsync, rename) before the mutation returns, so a crash or signal never leaves half a state
 * and an answered request is never lost. Mutations are synchronous, which also makes each
 * check-then-insert (unique names) atomic with respect to concurrent requests.
 */

const zoneSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  status: z.literal("active"),
  nameservers: z.array(z.string()),
  created_at: z.string(),
});
const bucketSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  storage_class: z.enum(STORAGE_CLASSES),
  created_at: z.string(),
});
const credentialSchema = z.strictObject({
  access_key_id: z.string(),
  secret_access_key: z.string(),
  active: z.boolean(),
  bucket_id: z.string(),
  created_at: z.string(),
});
const stateFileSchema = z.strictObject({
  version: z.literal(1),
  api_key: z.strictObject({ value: z.string(), created_at: z.string() }),
  jwt_secret: z.string(),
  zones: z.array(zoneSchema),
  buckets: z.array(bucketSchema),
  credentials: z.array(credentialSchema),
});

export type ZoneRecord = z.infer<typeof zoneSchema>;
export type BucketRecord = z.infer<typeof bucketSchema>;
export type CredentialRecord = z.infer<typeof credentialSchema>;
type StateFile = z.infer<typeof stateFileSchema>;

export class StateError extends Error {
  readonly code = "EMULATOR_STATE_INVALID";
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "StateError";
  }
}

export class StateStore {
  private apiKey: { value: string; created_at: string };
  readonly jwtSecret: string;
  private readonly zones = new Map<string, ZoneRecord>();
  private readonly buckets = new Map<string, BucketRecord>();
  private readonly credentials = new Map<string, CredentialRecord>();

  private constructor(
    private readonly file: string | undefined,
    data: StateFile,
  ) {
    this.apiKey = data.api_key;
    this.jwtSecret = data.jwt_secret;
    for (const z of data.zones) this.zones.set(z.id, z);
    for (const b of data.buckets) this.buckets.set(b.id, b);
    for (const c of data.credentials) this.credentials.set(c.access_key_id, c);
  }

  /** Loads the state file, or starts a fresh state (with a new API key) when there is none. */
  static open(file: string | undefined): StateStore {
    if (file !== undefined && existsSync(file)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(file, "utf8"));
      } catch (err) {
        throw new StateError(`the state file ${file} is not valid JSON; restore it or start with an empty --data-dir`, {
          cause: err,
        });
      }
      const result = stateFileSchema.safeParse(parsed);
      if (!result.success) {
        throw new StateError(
          `the state file ${file} has an unknown shape (${result.error.issues[0]?.path.join(".") ?? "?"}); ` +
            "it was written by another version: start with an empty --data-dir",
        );
      }
      return new StateStore(file, result.data);
    }
    const fresh = new StateStore(file, {
      version: 1,
      api_key: { value: newApiKey(), created_at: new Date().toISOString() },
      jwt_secret: newJwtSecret(),
      zones: [],
      buckets: [],
      credentials: [],
    });
    fresh.persist();
    return fresh;
  }

  get currentApiKey(): string {
    return this.apiKey.value;
  }

  rotateApiKey(): { api_key: string; created_at: string } {
    this.apiKey = { value: newApiKey(), created_at: new Date().toISOString() };
    this.persist();
    return { api_key: this.apiKey.value, created_at: this.apiKey.created_at };
  }

  listZones(): ZoneRecord[] {
    return [...this.zones.values()];
  }
  getZone(id: string): ZoneRecord | undefined {
    return this.zones.get(id);
  }
  zoneByName(name: string): ZoneRecord | undefined {
    return this.listZones().find((z) => z.name === name);
  }
  /** Inserts unless the name is taken; returns false then. */
  addZone(zone: ZoneRecord): boolean {
    return this.insertNamed(this.zones, zone);
  }
  deleteZone(id: string): boolean {
    return this.remove(this.zones, id);
  }

  listBuckets(): BucketRecord[] {
    return [...this.buckets.values()];
  }
  getBucket(id: string): BucketRecord | undefined {
    return this.buckets.get(id);
  }
  bucketByName(name: string): BucketRecord | undefined {
    return this.listBuckets().find((b) => b.name === name);
  }
  /** Inserts unless the name is taken; returns false then. */
  addBucket(bucket: BucketRecord): boolean {
    return this.insertNamed(this.buckets, bucket);
  }
  /** Removes a bucket and all its credentials. */
  deleteBucket(id: string): boolean {
    if (!this.buckets.delete(id)) return false;
    for (const [key, cred] of this.credentials) if (cred.bucket_id === id) this.credentials.delete(key);
    this.persist();
    return true;
  }

  listCredentials(bucketId: string): CredentialRecord[] {
    return this.listAllCredentials().filter((c) => c.bucket_id === bucketId);
  }
  listAllCredentials(): CredentialRecord[] {
    return [...this.credentials.values()];
  }
  getCredential(accessKeyId: string): CredentialRecord | undefined {
    return this.credentials.get(accessKeyId);
  }
  addCredential(credential: CredentialRecord): void {
    this.credentials.set(credential.access_key_id, credential);
    this.persist();
  }
  updateCredential(
    accessKeyId: string,
    patch: Partial<Pick<CredentialRecord, "active" | "secret_access_key">>,
  ): CredentialRecord {
    const current = this.credentials.get(accessKeyId);
    if (current === undefined) throw new StateError(`credential ${accessKeyId} vanished during an update`);
    const next = { ...current, ...patch };
    this.credentials.set(accessKeyId, next);
    this.persist();
    return next;
  }
  deleteCredential(accessKeyId: string): boolean {
    return this.remove(this.credentials, accessKeyId);
  }

  /** Clears zones, buckets and credentials; the API key and the JWT secret stay valid. */
  reset(): void {
    this.zones.clear();
    this.buckets.clear();
    this.credentials.clear();
    this.persist();
  }

  counts(): { zones: number; buckets: number; credentials: number } {
    return { zones: this.zones.size, buckets: this.buckets.size, credentials: this.credentials.size };
  }

  /** Zone and bucket names are unique; the check and the insert run without a pause between them. */
  private insertNamed<T extends { id: string; name: string }>(records: Map<string, T>, record: T): boolean {
    for (const existing of records.values()) if (existing.name === record.name) return false;
    records.set(record.id, record);
    this.persist();
    return true;
  }

  private remove<T>(records: Map<string, T>, key: string): boolean {
    const deleted = records.delete(key);
    if (deleted) this.persist();
    return deleted;
  }

  private persist(): void {
    if (this.file === undefined) return;
    const data: StateFile = {
      version: 1,
      api_key: this.apiKey,
      jwt_secret: this.jwtSecret,
      zones: this.listZones(),
      buckets: this.listBuckets(),
      credentials: this.listAllCredentials(),
    };
    const tmp = `${this.file}.${process.pid}.tmp`;
    // The file holds secrets (S3 secrets, API key): readable by the owner only.
    const fd = openSync(tmp, "w", 0o600);
    try {
      writeSync(fd, JSON.stringify(data, null, 2));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }
}
