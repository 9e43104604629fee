import { parseFile } from "music-metadata";
import { JobError } from "./errors.js";
import { hasTool, run } from "./tools.js";

/**
 * Audio length in seconds, read from the media: music-metadata from the header first (fast for
 * WAV, FLAC, MP3 with Xing, M4A), then ffprobe when installed, then a full music-metadata scan
 * (MP3 without Xing, Ogg/Opus).
 */
export async function measureDuration(path: string, signal: AbortSignal): Promise<number> {
  const fromHeader = await tryParse(path, false);
  if (fromHeader !== undefined) return fromHeader;
  if (await hasTool("ffprobe")) {
    const fromProbe = await probe(path, signal);
    if (fromProbe !== undefined) return fromProbe;
  }
  const fromScan = await tryParse(path, true);
  if (fromScan !== undefined) return fromScan;
  throw new JobError(
    "unsupported_media",
    "the audio length could not be read from the file; send a common audio or video format (WAV, MP3, FLAC, M4A, Ogg, MP4)",
  );
}

async function tryParse(path: string, fullScan: boolean): Promise<number | undefined> {
  try {
    const metadata = await parseFile(path, { duration: fullScan, skipCovers: true });
    const seconds = metadata.format.duration;
    return seconds !== undefined && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}

async function probe(path: string, signal: AbortSignal): Promise<number | undefined> {
  try {
    const out = await run(
      "ffprobe",
      ["-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", path],
      { timeoutMs: 30_000, signal },
    );
    const seconds = Number(out.trim());
    return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}
