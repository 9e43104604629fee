import * as pulumi from "@pulumi/pulumi";
import { transcriptTable, type TranscriptStatus } from "../provider/resources/transcript/fields.js";
import { customResourceArgs, registration } from "./resource.js";

export type { TranscriptStatus };

export interface TranscriptArgs {
  /**
   * Public http(s) URL of the audio or video. Exactly one of `url` and a source file. Private and internal addresses
   * (and `localhost`) are refused at preview, unless the configured API is itself on loopback (a local emulator).
   * Changing it starts a new job (replacement).
   * @example "https://media.example.com/keynote.mp4"
   */
  url?: pulumi.Input<string>;
  /**
   * A local audio or video file, up to 2 GB: a `pulumi.asset.FileAsset` or a path (relative paths start from the
   * program directory). Exactly one of `url` and `source`. The file's content hash (sha256) is computed at preview: a
   * changed file starts a new job, a moved file with the same content does not.
   * @example new pulumi.asset.FileAsset("media/interview.wav")
   */
  source?: pulumi.Input<pulumi.asset.FileAsset | string>;
  /**
   * `auto` (detect), or an ISO 639-1 code of a supported language (the contract's list, e.g. `en`, `de`, `haw`, `yue`).
   * Changing it starts a new job.
   * @default "auto"
   * @example "en"
   */
  language?: pulumi.Input<string>;
  /**
   * Map from what is heard to what is written: a hint to the model, also applied to the text. At most 100 entries, keys
   * and values at most 100 characters. Changing it starts a new job.
   * @example { "pull you me": "Pulumi", "kube": "Kubernetes" }
   */
  glossary?: pulumi.Input<Record<string, pulumi.Input<string>>>;
  /**
   * Called once (no retry) with `{"data": {"id", "status"}}` when the job ends. Same address rules as `url`. Changing
   * it does not re-run the job: the new address is only stored, the running or finished job keeps the address it was
   * created with.
   * @example "https://hooks.example.com/transcripts"
   */
  webhookUrl?: pulumi.Input<string>;
  /**
   * True: `pulumi up` waits until the job is `done` (or fails on `error`). False: create returns as soon as the job is
   * queued; `pulumi refresh` then brings `status` and `text` up to date.
   * @default true
   */
  waitForCompletion?: pulumi.Input<boolean>;
  /**
   * How long one `pulumi up` waits for the job, in minutes. Audio is limited to 6 hours and the platform does not say
   * how fast it processes; 24 hours covers a 6-hour file processed four times slower than real time, plus queueing, and
   * stays below the 7-day retention (the maximum). When the deadline passes the job keeps running: it is kept in the
   * state, and the next `pulumi up` resumes waiting on the same job instead of paying for a new one. Pulumi's
   * `customTimeouts` is not honoured; this is the deadline.
   * @default 1440
   */
  timeoutMinutes?: pulumi.Input<number>;
}

/**
 * A transcription job run to completion during `pulumi up`: the audio or video at `url` or in the
 * local file `source` becomes `text`. The job is paid for when it ends `done` (US$ 0.02 per hour of
 * audio, per started minute; `priceUsd`). See docs/transcript.md.
 *
 * `text` is not a secret: wrap it (`pulumi.secret(t.text)`) or list it in `additionalSecretOutputs`
 * if the recording is confidential.
 *
 * @example
 * const talk = new cloudplatform.Transcript("keynote", {
 *   source: new pulumi.asset.FileAsset("media/keynote.wav"),
 *   language: "en",
 *   glossary: { "pull you me": "Pulumi" },
 * });
 * export const text = talk.text;
 */
export class Transcript extends pulumi.CustomResource {
  /** The platform's transcript id (`GET /v1/transcripts/{id}`); also the resource id. */
  declare public readonly transcriptId: pulumi.Output<string>;
  /** `queued`, `processing`, `done` or `error`. */
  declare public readonly status: pulumi.Output<TranscriptStatus>;
  /** The transcribed text, once `done`. Kept in the state after the platform's 7-day retention. */
  declare public readonly text: pulumi.Output<string | undefined>;
  /** The language the platform reports (detected when `language` is `auto`). */
  declare public readonly detectedLanguage: pulumi.Output<string | undefined>;
  /** Length of the media in seconds, once the platform knows it. */
  declare public readonly audioDurationSeconds: pulumi.Output<number | undefined>;
  /** The price the spec implies, `ceil(seconds / 60) * 0.02 / 60` US$, once the duration is known. */
  declare public readonly priceUsd: pulumi.Output<number | undefined>;
  /** The platform's error code when `status` is `error` (e.g. `insufficient_balance`). */
  declare public readonly errorCode: pulumi.Output<string | undefined>;
  /** The platform's error message when `status` is `error`. */
  declare public readonly errorMessage: pulumi.Output<string | undefined>;
  /** When the platform created the job, when it says. */
  declare public readonly createdAt: pulumi.Output<string | undefined>;
  /** When the job ended, when the platform says. */
  declare public readonly completedAt: pulumi.Output<string | undefined>;
  /** When a refresh first found the result gone from the platform (after its 7-day retention). */
  declare public readonly expiredAt: pulumi.Output<string | undefined>;
  /**
   * Public http(s) URL of the audio or video. Exactly one of `url` and a source file. Private and internal addresses
   * (and `localhost`) are refused at preview, unless the configured API is itself on loopback (a local emulator).
   * Changing it starts a new job (replacement).
   */
  declare public readonly url: pulumi.Output<string | undefined>;
  /**
   * The local audio or video file as given, up to 2 GB (relative paths start from the program directory); it is
   * uploaded before the job starts. Exactly one of `url` and a source file. Moving the file without changing it updates
   * in place.
   */
  declare public readonly sourcePath: pulumi.Output<string | undefined>;
  /** sha256 of the source file's content, computed at preview; a change starts a new job. */
  declare public readonly sourceHash: pulumi.Output<string | undefined>;
  /**
   * `auto` (detect), or an ISO 639-1 code of a supported language (the contract's list, e.g. `en`, `de`, `haw`, `yue`).
   * Changing it starts a new job.
   */
  declare public readonly language: pulumi.Output<string>;
  /**
   * Map from what is heard to what is written: a hint to the model, also applied to the text. At most 100 entries, keys
   * and values at most 100 characters. Changing it starts a new job.
   */
  declare public readonly glossary: pulumi.Output<Record<string, string> | undefined>;
  /**
   * Called once (no retry) with `{"data": {"id", "status"}}` when the job ends. Same address rules as `url`. Changing
   * it does not re-run the job: the new address is only stored, the running or finished job keeps the address it was
   * created with.
   */
  declare public readonly webhookUrl: pulumi.Output<string | undefined>;
  /**
   * True: `pulumi up` waits until the job is `done` (or fails on `error`). False: create returns as soon as the job is
   * queued; `pulumi refresh` then brings `status` and `text` up to date.
   */
  declare public readonly waitForCompletion: pulumi.Output<boolean>;
  /**
   * How long one `pulumi up` waits for the job, in minutes. Audio is limited to 6 hours and the platform does not say
   * how fast it processes; 24 hours covers a 6-hour file processed four times slower than real time, plus queueing, and
   * stays below the 7-day retention (the maximum). When the deadline passes the job keeps running: it is kept in the
   * state, and the next `pulumi up` resumes waiting on the same job instead of paying for a new one. Pulumi's
   * `customTimeouts` is not honoured; this is the deadline.
   */
  declare public readonly timeoutMinutes: pulumi.Output<number>;

  constructor(name: string, args: TranscriptArgs, opts?: pulumi.CustomResourceOptions) {
    const registering = registration();
    try {
      super(
        ...customResourceArgs(transcriptTable, name, args, opts, {
          sourcePath: args.source === undefined ? undefined : sourcePathOf(args.source),
        }),
      );
    } catch (error) {
      throw registering.failed(error);
    } finally {
      registering.end();
    }
  }
}

/**
 * The provider reads the file itself (to hash and stream it), so only its path travels: an asset
 * would be copied into the state by the engine.
 */
function sourcePathOf(source: pulumi.Input<pulumi.asset.FileAsset | string>): pulumi.Input<string> {
  if (pulumi.asset.Asset.isInstance(source)) return pathOfAsset(source);
  // An asset inside an Output may arrive unwrapped (`{ path }`), hence the structural test below.
  return pulumi
    .output(source as pulumi.Input<pulumi.asset.FileAsset | string>)
    .apply(async (value: unknown) => (typeof value === "string" ? value : await pathOfAsset(value)));
}

function pathOfAsset(asset: unknown): string | Promise<string> {
  // Duck-typed: the program may hold a FileAsset of another copy of @pulumi/pulumi.
  const path = (asset as { path?: unknown } | null)?.path;
  if (typeof path === "string") return path;
  if (path instanceof Promise) return path as Promise<string>;
  throw new Error("Transcript: `source` must be a pulumi.asset.FileAsset or a file path; use `url` for remote media.");
}
