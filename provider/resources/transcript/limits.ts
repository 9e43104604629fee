/** Platform limits (spec §8) and languages (contract §8.2) that the check step enforces before any API call. */
import { autoLanguage } from "./fields.js";

/** "up to 2 GB": read as 2 GiB, the larger reading, so a file the platform accepts is never refused here. */
export const maxUploadBytes = 2 * 1024 ** 3;
export const maxGlossaryEntries = 100;
export const maxGlossaryChars = 100;

/** Waiting longer than the retention is pointless: the result would be gone when the job ends. */
export const maxTimeoutMinutes = 7 * 24 * 60;

/** US$ per started minute of audio: US$ 0.02 per hour (spec §8). */
const usdPerMinute = 0.02 / 60;

/** The price the spec implies for a duration, rounded to 1e-12 US$ to hide binary float noise. */
export function priceForDuration(seconds: number): number {
  const startedMinutes = Math.ceil(seconds / 60);
  return Math.round(startedMinutes * usdPerMinute * 1e12) / 1e12;
}

/**
 * The language codes the transcription API accepts (docs/api-contract.md §8.2: the Whisper set, 100
 * codes although the contract calls it "99", plus `auto`). Kept as data so that the check step
 * refuses a typo at preview instead of after a paid upload.
 */
export const supportedLanguages: ReadonlySet<string> = new Set(
  (
    "af am ar as az ba be bg bn bo br bs ca cs cy da de el en es et eu fa fi fo fr gl gu ha haw he hi " +
    "hr ht hu hy id is it ja jw ka kk km kn ko la lb ln lo lt lv mg mi mk ml mn mr ms mt my ne nl nn no " +
    "oc pa pl ps pt ro ru sa sd si sk sl sn so sq sr su sv sw ta te tg th tk tl tr tt uk ur uz vi yi yo " +
    "zh yue"
  ).split(" "),
);

export function isSupportedLanguage(code: string): boolean {
  return code === autoLanguage || supportedLanguages.has(code);
}
