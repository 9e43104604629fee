// The Pulumi CLI's passphrase secrets provider, for the e2e runner: it reads a stack's outputs from
// its file:// backend's checkpoint instead of starting the CLI once more after every `up` (`pulumi
// stack export --show-secrets`: ~0.6 s of CPU, a third of it deriving this key), and encrypts the
// secret config values it writes to the stack's settings file (stack-settings.mts).
// As in pulumi v3.259.0 (sdk/go/common/resource/config/crypt.go, pkg/secrets/passphrase): the key
// is PBKDF2-SHA256 of the passphrase over the salt, 1,000,000 rounds, 32 bytes; a value is
// `v1:<nonce>:<ciphertext and tag>`, base64, AES-256-GCM; the state `v1:<salt>:<value>` holds
// "pulumi" encrypted, which proves the passphrase.
import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from "node:crypto";

/** The engine's marker of a secret value in state (its secret signature). */
export const secretSignature = "4dabf18193072939515e22adb298388d";

/** Keys already derived in this process, by passphrase and salt state: ~0.3 s of CPU each. */
const keys = new Map<string, Buffer>();

/** `v1:<nonce>:<ciphertext and tag>` decrypted with `key`; throws on any other shape or a wrong key. */
export function decryptValue(key: Buffer, value: string): string {
  const [version, nonce, sealed, ...rest] = value.split(":");
  if (version !== "v1" || nonce === undefined || sealed === undefined || rest.length > 0)
    throw new Error("not a v1 passphrase-encrypted value");
  const bytes = Buffer.from(sealed, "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64"));
  decipher.setAuthTag(bytes.subarray(bytes.length - 16));
  return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - 16)), decipher.final()]).toString("utf8");
}

/** `plaintext` encrypted with `key` as the CLI encrypts a secret: `v1:<12-byte nonce>:<ciphertext and tag>`. */
export function encryptValue(key: Buffer, plaintext: string): string {
  const nonce = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1:${nonce.toString("base64")}:${sealed.toString("base64")}`;
}

/** The key of a passphrase secrets provider's state (`v1:<salt>:<"pulumi" encrypted>`), proven by it. */
export function passphraseKey(passphrase: string, state: string): Buffer {
  const cacheKey = `${passphrase}\n${state}`;
  const known = keys.get(cacheKey);
  if (known) return known;
  const [version, salt] = state.split(":");
  if (version !== "v1" || !salt) throw new Error("not a v1 passphrase state");
  const key = pbkdf2Sync(passphrase, Buffer.from(salt, "base64"), 1_000_000, 32, "sha256");
  const proof = state.slice(state.indexOf(":", version.length + 1) + 1);
  if (decryptValue(key, proof) !== "pulumi") throw new Error("the passphrase does not open this state");
  keys.set(cacheKey, key);
  return key;
}

/** A state value with every secret's plaintext put back in place (`ciphertext` decrypted, or `plaintext` read). */
export function revealed(value: unknown, key?: Buffer): unknown {
  if (Array.isArray(value)) return value.map((v) => revealed(v, key));
  if (value === null || typeof value !== "object") return value;
  const record = value as Record<string, unknown>;
  if (secretSignature in record) {
    if (typeof record.plaintext === "string") return revealed(JSON.parse(record.plaintext) as unknown, key);
    if (typeof record.ciphertext === "string" && key !== undefined)
      return revealed(JSON.parse(decryptValue(key, record.ciphertext)) as unknown, key);
    throw new Error("a secret with neither plaintext nor a ciphertext this key opens");
  }
  return Object.fromEntries(Object.entries(record).map(([k, inner]) => [k, revealed(inner, key)]));
}

/** Whether a state value is a secret as a whole (what `stack output` reports as `secret`). */
export function isSecret(value: unknown): boolean {
  return value !== null && typeof value === "object" && secretSignature in value;
}
