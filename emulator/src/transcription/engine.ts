import { JobError } from "./errors.js";
import { hasTool, run } from "./tools.js";

/** A speech-to-text engine that reads a 16 kHz mono 16-bit WAV file. */
export interface SpeechEngine {
  readonly name: string;
  /** Languages it can do; undefined = any (the engine is told the language). */
  readonly languages?: ReadonlySet<string>;
  transcribe(wavPath: string, language: string, signal: AbortSignal, timeoutMs: number): Promise<string>;
}

/**
 * The `--transcriber` command when given (split like a shell word list, quotes allowed; the WAV path
 * is appended and the requested language is in CLOUDPLATFORM_TRANSCRIBE_LANGUAGE), otherwise Debian
 * pocketsphinx (old `pocketsphinx_continuous` or new `pocketsphinx single`), otherwise none.
 */
export async function detectEngine(transcriber: string | undefined): Promise<SpeechEngine | undefined> {
  if (transcriber !== undefined && transcriber.trim() !== "") return commandEngine(splitCommand(transcriber));
  if (await hasTool("pocketsphinx_continuous")) {
    return {
      name: "pocketsphinx_continuous",
      languages: ENGLISH,
      transcribe: async (wav, _language, signal, timeoutMs) =>
        joinLines(await run("pocketsphinx_continuous", ["-infile", wav, "-logfn", "/dev/null"], { signal, timeoutMs })),
    };
  }
  if (await hasTool("pocketsphinx")) {
    return {
      name: "pocketsphinx",
      languages: ENGLISH,
      transcribe: async (wav, _language, signal, timeoutMs) =>
        parseSinglePass(await run("pocketsphinx", ["single", wav], { signal, timeoutMs })),
    };
  }
  return undefined;
}

const ENGLISH: ReadonlySet<string> = new Set(["auto", "en"]);

function commandEngine([file, ...args]: string[]): SpeechEngine {
  if (file === undefined) throw new Error("the transcriber command is empty");
  return {
    name: file,
    transcribe: async (wav, language, signal, timeoutMs) =>
      joinLines(
        await run(file, [...args, wav], {
          signal,
          timeoutMs,
          env: { ...process.env, CLOUDPLATFORM_TRANSCRIBE_LANGUAGE: language },
        }),
      ),
  };
}

function joinLines(out: string): string {
  return out
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
}

/** `pocketsphinx single` prints one JSON object per utterance with the text in `t`. */
function parseSinglePass(out: string): string {
  const parts: string[] = [];
  for (const line of out.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const parsed = JSON.parse(line) as { t?: unknown };
      if (typeof parsed.t === "string" && parsed.t.trim() !== "") parts.push(parsed.t.trim());
    } catch {
      parts.push(line.trim());
    }
  }
  return parts.join(" ");
}

/** Splits a command line on blanks, honouring single and double quotes (no shell is involved). */
function splitCommand(command: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of command.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3] ?? "");
  return words;
}

/** Converts any media to 16 kHz mono 16-bit WAV, the input every engine above expects. */
export async function toSpeechWav(
  input: string,
  output: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<void> {
  if (await hasTool("ffmpeg")) {
    await run(
      "ffmpeg",
      [
        "-nostdin",
        "-v",
        "error",
        "-y",
        "-i",
        input,
        "-vn",
        "-ar",
        "16000",
        "-ac",
        "1",
        "-c:a",
        "pcm_s16le",
        "-f",
        "wav",
        output,
      ],
      { signal, timeoutMs },
    ).catch((err: unknown) => {
      throw new JobError(
        "unsupported_media",
        `the audio could not be decoded (${(err as Error).message}); send a common format`,
      );
    });
    return;
  }
  if (await hasTool("sox")) {
    await run("sox", [input, "-r", "16000", "-c", "1", "-b", "16", "-t", "wav", output], { signal, timeoutMs }).catch(
      (err: unknown) => {
        throw new JobError(
          "unsupported_media",
          `the audio could not be decoded (${(err as Error).message}); send WAV or FLAC`,
        );
      },
    );
    return;
  }
  throw new JobError("engine_failed", "neither ffmpeg nor sox is installed to convert the audio for the speech engine");
}
