// The e2e runner's config, written to the stack's settings file (Pulumi.<stack>.yaml) as `pulumi
// config set-all` writes it: plain values as strings, secrets as `secure:` values encrypted with the
// stack's passphrase key (passphrase.mts). A `config set-all` is a CLI process of ~0.6 s of CPU, a
// third of it deriving that key; the suite made 187 of them (116 s of CPU, bench/README.md, "Where
// the suite's CPU goes"), where this takes milliseconds once the runner's process has the key.
// Anything not plainly a passphrase stack's file (no file yet, another secrets provider, a key with
// no namespace, which the CLI would qualify with the project's name) is left to the CLI.
import { readFile, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { ConfigEntry } from "./runner.mts";
import { encryptValue, passphraseKey } from "./passphrase.mts";

/** js-yaml, the YAML parser and printer @pulumi/pulumi itself depends on (loaded as its dependency). */
const yaml = createRequire(createRequire(import.meta.url).resolve("@pulumi/pulumi"))("js-yaml") as {
  load(text: string): unknown;
  dump(value: unknown, options?: { lineWidth?: number }): string;
};

type Settings = Record<string, unknown> & { config?: Record<string, unknown> };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * The settings text with `config` set and `removed` taken out, or undefined when the text is not a
 * passphrase stack's settings that this passphrase opens, or a key has no namespace (`ns:key`).
 */
export function configuredSettings(
  text: string,
  passphrase: string,
  config: Readonly<Record<string, ConfigEntry>>,
  removed: readonly string[],
): string | undefined {
  const keys = [...Object.keys(config), ...removed];
  if (keys.some((k) => !/^[^:]+:[^:]+$/.test(k))) return undefined;
  let settings: unknown;
  try {
    settings = yaml.load(text);
  } catch {
    return undefined;
  }
  if (!isRecord(settings)) return undefined;
  const salt = settings["encryptionsalt"];
  if (typeof salt !== "string" || "secretsprovider" in settings || "encryptedkey" in settings) return undefined;
  if (settings["config"] !== undefined && !isRecord(settings["config"])) return undefined;
  let key: Buffer;
  try {
    key = passphraseKey(passphrase, salt);
  } catch {
    return undefined;
  }
  const next: Settings = { ...settings, config: { ...(settings["config"] as Record<string, unknown> | undefined) } };
  const entries = next.config as Record<string, unknown>;
  for (const [name, entry] of Object.entries(config))
    entries[name] = entry.secret ? { secure: encryptValue(key, entry.value) } : entry.value;
  for (const name of removed) delete entries[name];
  if (Object.keys(entries).length === 0) delete next.config;
  // No folding: a long value (a PEM, a JSON document) stays on one line, as the CLI writes it.
  return yaml.dump(next, { lineWidth: -1 });
}

/**
 * Sets `config` and removes `removed` in the settings file `file`; false when it is not plainly
 * ours to write (configuredSettings), and the caller runs the CLI instead. Written whole, then
 * renamed into place, so that a CLI reading it never sees half a file.
 */
export async function writeConfig(
  file: string,
  passphrase: string,
  config: Readonly<Record<string, ConfigEntry>>,
  removed: readonly string[],
): Promise<boolean> {
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text === undefined) return false;
  const written = configuredSettings(text, passphrase, config, removed);
  if (written === undefined) return false;
  await writeFile(`${file}.tmp`, written);
  await rename(`${file}.tmp`, file);
  return true;
}
