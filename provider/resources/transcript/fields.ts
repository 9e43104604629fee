import { createdAt, type InputsOf, type OutputsOf, type ResourceTable } from "../../tables.js";
import { transcriptStatuses } from "../../platform/transcript/parse.js";

/** Status of a transcription job (spec §2): what the platform answers, read in platform/transcript/parse.ts. */
export { transcriptStatuses, type TranscriptStatus } from "../../platform/transcript/parse.js";

/** Detect the language: the default, beside the codes of limits.ts. */
export const autoLanguage = "auto";

/** Old states must stay readable: fields are only ever added, never renamed. */
export const transcriptTable = {
  type: "Transcript",
  description:
    "One transcription job run to completion during `pulumi up` (paid when it ends `done`). Give exactly one of " +
    "`url` and `sourcePath`.",
  fields: {
    url: {
      kind: "string",
      input: "program",
      optional: true,
      replaceOnChange: true,
      description:
        "Public http(s) URL of the audio or video. Exactly one of `url` and a source file. Private and internal " +
        "addresses (and `localhost`) are refused at preview, unless the configured API is itself on loopback (a " +
        "local emulator). Changing it starts a new job (replacement).",
    },
    sourcePath: {
      kind: "string",
      input: "program",
      optional: true,
      description:
        "The local audio or video file as given, up to 2 GB (relative paths start from the program directory); it " +
        "is uploaded before the job starts. Exactly one of `url` and a source file. Moving the file without " +
        "changing it updates in place.",
      sdk: {
        name: "source",
        description:
          "A local audio or video file, up to 2 GB: a `pulumi.asset.FileAsset` or a path (relative paths start from " +
          "the program directory). Exactly one of `url` and `source`. The file's content hash (sha256) is computed at " +
          "preview: a changed file starts a new job, a moved file with the same content does not.",
      },
    },
    sourceHash: {
      kind: "string",
      input: "check",
      optional: true,
      replaceOnChange: true,
      description: "sha256 of the source file's content, computed at preview; a change starts a new job.",
    },
    language: {
      kind: "string",
      input: "program",
      replaceOnChange: true,
      default: autoLanguage,
      description:
        "`auto` (detect), or an ISO 639-1 code of a supported language (the contract's list, e.g. `en`, `de`, " +
        "`haw`, `yue`). Changing it starts a new job.",
    },
    glossary: {
      kind: "stringMap",
      input: "program",
      optional: true,
      replaceOnChange: true,
      description:
        "Map from what is heard to what is written: a hint to the model, also applied to the text. At most 100 " +
        "entries, keys and values at most 100 characters. Changing it starts a new job.",
    },
    webhookUrl: {
      kind: "string",
      input: "program",
      optional: true,
      description:
        'Called once (no retry) with `{"data": {"id", "status"}}` when the job ends. Same address rules as `url`. ' +
        "Changing it does not re-run the job: the new address is only stored, the running or finished job keeps " +
        "the address it was created with.",
    },
    waitForCompletion: {
      kind: "boolean",
      input: "program",
      default: true,
      description:
        "True: `pulumi up` waits until the job is `done` (or fails on `error`). False: create returns as soon as " +
        "the job is queued; `pulumi refresh` then brings `status` and `text` up to date.",
    },
    timeoutMinutes: {
      kind: "number",
      input: "program",
      // Audio is limited to 6 hours (spec §8) and the speed of processing is not given: see the description.
      default: 24 * 60,
      description:
        "How long one `pulumi up` waits for the job, in minutes. Audio is limited to 6 hours and the platform does " +
        "not say how fast it processes; 24 hours covers a 6-hour file processed four times slower than real time, " +
        "plus queueing, and stays below the 7-day retention (the maximum). When the deadline passes the job keeps " +
        "running: it is kept in the state, and the next `pulumi up` resumes waiting on the same job instead of " +
        "paying for a new one. Pulumi's `customTimeouts` is not honoured; this is the deadline.",
    },
    transcriptId: {
      kind: "string",
      description: "The platform's transcript id (`GET /v1/transcripts/{id}`); also the resource id.",
    },
    status: { kind: "string", values: transcriptStatuses, description: "`queued`, `processing`, `done` or `error`." },
    text: {
      // The user's own content, not a credential: users wrap it with pulumi.secret() if needed.
      kind: "string",
      optional: true,
      description: "The transcribed text, once `done`. Kept in the state after the platform's 7-day retention.",
    },
    detectedLanguage: {
      kind: "string",
      optional: true,
      description: "The language the platform reports (detected when `language` is `auto`).",
    },
    audioDurationSeconds: {
      kind: "number",
      optional: true,
      description: "Length of the media in seconds, once the platform knows it.",
    },
    priceUsd: {
      kind: "number",
      optional: true,
      description: "The price the spec implies, `ceil(seconds / 60) * 0.02 / 60` US$, once the duration is known.",
    },
    errorCode: {
      kind: "string",
      optional: true,
      description: "The platform's error code when `status` is `error` (e.g. `insufficient_balance`).",
    },
    errorMessage: {
      kind: "string",
      optional: true,
      description: "The platform's error message when `status` is `error`.",
    },
    createdAt: createdAt("job"),
    completedAt: { kind: "string", optional: true, description: "When the job ended, when the platform says." },
    expiredAt: {
      kind: "string",
      optional: true,
      description: "When a refresh first found the result gone from the platform (after its 7-day retention).",
    },
  },
} as const satisfies ResourceTable;

/** The inputs after `check`: defaults applied, `sourceHash` computed from the file. */
export type TranscriptInputs = InputsOf<typeof transcriptTable>;
/** The outputs: the inputs plus the job's record. */
export type TranscriptOutputs = OutputsOf<typeof transcriptTable>;
