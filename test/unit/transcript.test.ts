import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CallContext } from "../../provider/contract.js";
import type { Clock } from "../../provider/vocabulary.js";
import { nameKey } from "../../provider/contract.js";
import { CloudPlatformError, PartialCreateError, TranscriptFailedError } from "../../provider/errors.js";
import { createTranscriptCore } from "../../provider/resources/transcript/core.js";
import { closePools } from "../../provider/client.js";
import { toDynamicProvider } from "../../provider/dynamic.js";
import type { Host } from "../../provider/host.js";
import type { TranscriptInputs, TranscriptOutputs } from "../../provider/resources/transcript/fields.js";
import { FileJournal, type Journal } from "../../provider/journal.js";
import { testHost } from "./support.js";

const api = "http://api.cloudplatform.test";
const apiKey = "cp-testkey_0123456789";
const uploadToken = "tok_SECRET_upload_7c1f";

/** A host configured for the mocked API, on `clock` (its client's waits too), with fast retries. */
function host(clock: Clock = fakeClock(), journal?: () => Journal): Host {
  const h = testHost({
    clock,
    client: { retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 } },
    ...(journal === undefined ? {} : { journal }),
  });
  h.configure({ "cloudplatform:baseUrl": api, "cloudplatform:apiKey": apiKey });
  return h;
}

/**
 * A call context that keeps everything the core wrote to the Pulumi output, to assert on progress
 * and on leaks; with `journal`, the call belongs to a stack whose recovery journal it is.
 */
function context(clock: Clock = fakeClock(), journal?: Journal): CallContext & { lines: string[] } {
  const lines: string[] = [];
  const log = {
    info: (m: string) => void lines.push(`info ${m}`),
    warn: (m: string) => void lines.push(`warn ${m}`),
    debug: (m: string) => void lines.push(`debug ${m}`),
  };
  const h = journal === undefined ? host(clock) : host(clock, () => journal);
  return Object.assign(h.context("Transcript", "talk", log, journal === undefined ? "" : "org/proj/dev"), { lines });
}

/** A clock that advances only when the core sleeps: polling for hours takes no real time. */
function fakeClock() {
  let t = 1_700_000_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
  };
}

function core() {
  return createTranscriptCore({
    pollBackoff: { baseDelayMs: 1_000, maxDelayMs: 15_000, jitter: "near", random: () => 0.5 },
    upload: { attempts: 3, backoff: { baseDelayMs: 1, maxDelayMs: 1 } },
  });
}

function urlInputs(over: Partial<TranscriptInputs> = {}): TranscriptInputs {
  return {
    url: "https://media.example.com/talk.mp3",
    language: "auto",
    waitForCompletion: true,
    timeoutMinutes: 60,
    ...over,
  };
}

const done = {
  id: "tr_1",
  status: "done",
  text: "hello world",
  language: "en",
  audio_duration: 61,
  price_usd: 0.000667,
  error: null,
  completed_at: "2026-11-22T10:00:00Z",
};

beforeAll(() => {
  nock.disableNetConnect();
});
afterAll(async () => {
  nock.enableNetConnect();
  await closePools();
});
afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  expect(pending).toEqual([]);
});

describe("Transcript create", () => {
  it("starts the job with ?wait=false, and needs no poll when the answer is already done", async () => {
    const clock = fakeClock();
    nock(api)
      .post("/v1/transcripts", { url: "https://media.example.com/talk.mp3", language: "auto" })
      .query({ wait: "false" })
      .matchHeader("authorization", apiKey)
      .reply(200, done);
    const result = await core().create(context(clock), urlInputs());
    expect(result.id).toBe("tr_1");
    expect(result.outs).toMatchObject({
      transcriptId: "tr_1",
      status: "done",
      text: "hello world",
      detectedLanguage: "en",
      audioDurationSeconds: 61,
      // 61 s = 2 started minutes at US$ 0.02 per hour.
      priceUsd: 0.000666666667,
      completedAt: "2026-11-22T10:00:00Z",
      url: "https://media.example.com/talk.mp3",
      language: "auto",
    });
    expect(clock.sleeps).toEqual([]);
  });

  it("polls with growing, capped delays after 202 until done, logging progress rarely", async () => {
    const clock = fakeClock();
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(202, { id: "tr_2", status: "queued" });
    nock(api).get("/v1/transcripts/tr_2").times(9).reply(200, { id: "tr_2", status: "processing" });
    nock(api)
      .get("/v1/transcripts/tr_2")
      .reply(200, { ...done, id: "tr_2" });
    const ctx = context(clock);
    const result = await core().create(ctx, urlInputs());
    expect(result.outs.status).toBe("done");
    expect(result.outs.text).toBe("hello world");
    expect(clock.sleeps).toEqual([1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000, 15_000, 15_000, 15_000]);
    const progress = ctx.lines.filter((l) => l.includes("waited"));
    // One line per status change (processing, done) plus one per 30 s of unchanged status, not ten.
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.length).toBeLessThan(10);
    expect(progress[0]).toMatch(/^info Transcript "talk": job tr_2 is processing \(waited 1s\)$/);
  });

  it("sends ?wait=false and returns the queued job when waitForCompletion is false", async () => {
    nock(api)
      .post("/v1/transcripts")
      .query({ wait: "false" })
      .reply(202, { id: "tr_3", status: "queued", language: "auto" });
    const result = await core().create(context(), urlInputs({ waitForCompletion: false }));
    expect(result.outs).toMatchObject({ transcriptId: "tr_3", status: "queued" });
    expect(result.outs.text).toBeUndefined();
    expect(result.outs.detectedLanguage).toBeUndefined();
  });

  it("fails with the job's code and message when the job ends in error", async () => {
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(202, { id: "tr_4", status: "processing" });
    nock(api)
      .get("/v1/transcripts/tr_4")
      .reply(200, { id: "tr_4", status: "error", error: "media_unreadable: no audio stream found" });
    const error = await core()
      .create(context(), urlInputs())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TranscriptFailedError);
    const failed = error as TranscriptFailedError;
    expect(failed.code).toBe("CLOUDPLATFORM_TRANSCRIPT_FAILED");
    expect(failed.jobCode).toBe("media_unreadable");
    expect(failed.message).toContain(
      'Transcript "talk": transcription job tr_4 failed: media_unreadable: no audio stream found',
    );
    // Not partial state: nothing was charged and the next `up` must start a new job.
    expect(error).not.toBeInstanceOf(PartialCreateError);
  });

  it("says what to do on insufficient balance", async () => {
    nock(api)
      .post("/v1/transcripts")
      .query({ wait: "false" })
      .reply(202, { id: "tr_5", status: "error", error: "insufficient_balance: balance 0.00 USD, price 0.02 USD" });
    const error = (await core()
      .create(context(), urlInputs())
      .catch((e: unknown) => e)) as TranscriptFailedError;
    expect(error.jobCode).toBe("insufficient_balance");
    expect(error.message).toMatch(/insufficient_balance: balance 0\.00 USD/);
    expect(error.message).toMatch(/Add funds or enable auto-recharge.*then run `pulumi up` again/);
  });

  it("keeps the job as partial state at the deadline, and update resumes the same id without a new job", async () => {
    const clock = fakeClock();
    let posts = 0;
    nock(api)
      .post("/v1/transcripts")
      .query({ wait: "false" })
      .reply(() => {
        posts++;
        return [202, { id: "tr_6", status: "processing" }];
      });
    nock(api)
      .get("/v1/transcripts/tr_6")
      .times(7)
      .reply(200, { id: "tr_6", status: "processing", audio_duration: 3600 });
    const c = core();
    const error = await c.create(context(clock), urlInputs({ timeoutMinutes: 1 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartialCreateError);
    const partial = error as PartialCreateError;
    expect(partial.id).toBe("tr_6");
    expect(partial.outs).toMatchObject({
      transcriptId: "tr_6",
      status: "processing",
      audioDurationSeconds: 3600,
      priceUsd: 0.02,
    });
    expect(partial.message).toContain("CLOUDPLATFORM_TRANSCRIPT_DEADLINE");
    expect(partial.message).toContain("run `pulumi up` again");
    // The wait stopped at the deadline, not after it.
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(60_000);

    // Next `up`: the engine diffs, then calls update on the partially created resource.
    const olds = partial.outs as unknown as TranscriptOutputs;
    const news = urlInputs({ timeoutMinutes: 1 });
    expect(c.diff(context(), "tr_6", olds, news)).toMatchObject({ changes: true, replaces: [] });
    nock(api).get("/v1/transcripts/tr_6").reply(200, { id: "tr_6", status: "processing" });
    nock(api)
      .get("/v1/transcripts/tr_6")
      .reply(200, { ...done, id: "tr_6", audio_duration: 3600 });
    const outs = await c.update(context(clock), "tr_6", olds, news);
    expect(outs).toMatchObject({ transcriptId: "tr_6", status: "done", text: "hello world", priceUsd: 0.02 });
    expect(posts).toBe(1);
  });

  it("keeps the id as partial state when polling fails after the job was created", async () => {
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(202, { id: "tr_7", status: "queued" });
    nock(api)
      .get("/v1/transcripts/tr_7")
      .times(2)
      .reply(503, { error: { code: "internal", message: "boom" } });
    const error = (await core()
      .create(context(), urlInputs())
      .catch((e: unknown) => e)) as PartialCreateError;
    expect(error).toBeInstanceOf(PartialCreateError);
    expect(error.id).toBe("tr_7");
    expect(error.outs).toMatchObject({ status: "queued" });
  });

  it("reads the answer's variants, and names only the keys of an answer it cannot read", async () => {
    nock(api)
      .post("/v1/transcripts")
      .query({ wait: "false" })
      .reply(200, { data: { transcriptId: 42, status: "done", text: "hi", audioDuration: 3 } });
    expect((await core().create(context(), urlInputs())).outs).toMatchObject({
      transcriptId: "42",
      text: "hi",
      audioDurationSeconds: 3,
    });
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(200, { job: "private-job-value", state: "done" });
    const error = (await core()
      .create(context(), urlInputs())
      .catch((e: unknown) => e)) as CloudPlatformError;
    // Processed for sure, and the platform cannot list jobs: not repeated (a second job is paid twice).
    expect(error.code).toBe("CLOUDPLATFORM_OUTCOME_UNKNOWN");
    expect(error.message).toContain("POST /v1/transcripts was processed (200) but its answer could not be read");
    expect(error.message).toContain("[job, state]");
    expect(error.message).not.toContain("private-job-value");
  });

  it("does not repeat the create when it may have reached the server", async () => {
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(502, "bad gateway");
    const error = (await core()
      .create(context(), urlInputs())
      .catch((e: unknown) => e)) as CloudPlatformError;
    expect(error.code).toBe("CLOUDPLATFORM_OUTCOME_UNKNOWN");
    expect(error).not.toBeInstanceOf(PartialCreateError);
  });
});

describe("Transcript after an interrupted run", () => {
  let dir: string;
  let journal: FileJournal;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "transcript-journal-"));
    journal = new FileJournal(dir);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A call of a stack whose journal is `journal`. */
  const journalled = (): CallContext & { lines: string[] } => context(fakeClock(), journal);

  it("journals the job's id as soon as it is created, before waiting for it", async () => {
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(202, { id: "tr_7", status: "queued" });
    nock(api).get("/v1/transcripts/tr_7").times(2).reply(503);
    await core()
      .create(journalled(), urlInputs())
      .catch(() => undefined);
    expect(journal.find("Transcript", "talk", api)).toMatchObject({ state: "created", id: "tr_7" });
  });

  it("resumes the job an interrupted run started for the same inputs instead of paying for a new one", async () => {
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(202, { id: "tr_7", status: "queued" });
    nock(api).get("/v1/transcripts/tr_7").times(2).reply(503);
    await core()
      .create(journalled(), urlInputs())
      .catch(() => undefined);
    // The next run: no POST is mocked, so a new job would fail the test.
    nock(api).get("/v1/transcripts/tr_7").reply(200, { id: "tr_7", status: "processing" });
    nock(api)
      .get("/v1/transcripts/tr_7")
      .reply(200, { ...done, id: "tr_7" });
    const ctx = journalled();
    const result = await core().create(ctx, urlInputs());
    expect(result).toMatchObject({ id: "tr_7", outs: { status: "done", text: "hello world" } });
    expect(ctx.lines.join("\n")).toContain("resuming job tr_7, which an interrupted run started");
  });

  it("starts a new job when the inputs changed, or the earlier job failed (a failed job is not charged)", async () => {
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(202, { id: "tr_7", status: "queued" });
    nock(api).get("/v1/transcripts/tr_7").times(2).reply(503);
    await core()
      .create(journalled(), urlInputs())
      .catch(() => undefined);
    nock(api)
      .post("/v1/transcripts", (body: { language?: string }) => body.language === "en")
      .query({ wait: "false" })
      .reply(200, { ...done, id: "tr_8" });
    expect((await core().create(journalled(), urlInputs({ language: "en" }))).id).toBe("tr_8");

    journal.created("Transcript", "talk", api, "tr_9", {
      inputHash: journal.find("Transcript", "talk", api)?.inputHash ?? "",
    });
    nock(api).get("/v1/transcripts/tr_9").reply(200, { id: "tr_9", status: "error", error: "engine_failed: x" });
    nock(api)
      .post("/v1/transcripts")
      .query({ wait: "false" })
      .reply(200, { ...done, id: "tr_10" });
    expect((await core().create(journalled(), urlInputs({ language: "en" }))).id).toBe("tr_10");
  });

  it("says so when an interrupted run's job was sent but its id never came back", async () => {
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(502);
    await core()
      .create(journalled(), urlInputs())
      .catch(() => undefined);
    expect(journal.find("Transcript", "talk", api)?.state).toBe("creating");
    nock(api)
      .post("/v1/transcripts")
      .query({ wait: "false" })
      .reply(200, { ...done, id: "tr_2" });
    const ctx = journalled();
    expect((await core().create(ctx, urlInputs())).id).toBe("tr_2");
    expect(ctx.lines.join("\n")).toContain("its answer was lost with that run");
  });
});

describe("Transcript upload", () => {
  const dir = mkdtempSync(join(tmpdir(), "transcript-test-"));
  const file = join(dir, "speech.wav");
  const content = "RIFF-fake-audio-".repeat(4096);
  writeFileSync(file, content);

  // The upload target is a real server on loopback (nock cannot reliably intercept retried
  // streamed bodies); the API calls stay on nock, and the network stays closed to anything else.
  interface Received {
    readonly path: string;
    readonly length: string | undefined;
    readonly authorization: string | undefined;
    readonly body: string;
  }
  const received: Received[] = [];
  let answers: [number, object][] = [];
  let uploadOrigin = "";
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        length: req.headers["content-length"],
        authorization: req.headers["authorization"],
        body: Buffer.concat(chunks).toString(),
      });
      const [status, body] = answers.shift() ?? [500, { error: { code: "internal", message: "no answer scripted" } }];
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    uploadOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    nock.enableNetConnect((host) => host === uploadOrigin.slice("http://".length));
  });
  afterAll(async () => {
    nock.disableNetConnect();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    received.length = 0;
    answers = [];
  });

  it("streams the file, re-sends it whole after a 503, then creates with the upload key", async () => {
    answers = [
      [503, { error: { code: "unavailable", message: "try later" } }],
      [200, { uploadKey: "upl_1", size: content.length }],
    ];
    nock(api)
      .post("/v1/transcripts/upload", { filename: "speech.wav", size: content.length })
      .reply(200, { uploadKey: "upl_1", uploadUrl: `${uploadOrigin}/v1/uploads/upl_1?token=${uploadToken}` });
    nock(api)
      .post("/v1/transcripts", { uploadKey: "upl_1", language: "en" })
      .query({ wait: "false" })
      .reply(200, { ...done, id: "tr_up" });
    const ctx = context();
    const result = await core().create(ctx, {
      sourcePath: file,
      sourceHash: "h",
      language: "en",
      waitForCompletion: true,
      timeoutMinutes: 60,
    });
    expect(result.outs).toMatchObject({ transcriptId: "tr_up", status: "done", sourcePath: file });
    expect(received).toEqual([
      // The upload URL carries its own token: the API key does not go there.
      {
        path: `/v1/uploads/upl_1?token=${uploadToken}`,
        length: String(content.length),
        authorization: undefined,
        body: content,
      },
      {
        path: `/v1/uploads/upl_1?token=${uploadToken}`,
        length: String(content.length),
        authorization: undefined,
        body: content,
      },
    ]);
    expect(ctx.lines.some((l) => l.startsWith("warn") && l.includes("503"))).toBe(true);
    expect(ctx.lines.join("\n")).not.toContain(uploadToken);
    expect(ctx.lines.join("\n")).not.toContain(uploadOrigin);
  });

  it("never puts the upload URL or its token in an error or a log line", async () => {
    const echo = {
      error: { code: "unavailable", message: `cannot store ${uploadOrigin}/v1/uploads/upl_2?token=${uploadToken}` },
    };
    answers = [
      [503, echo],
      [503, echo],
      [503, echo],
    ];
    nock(api)
      .post("/v1/transcripts/upload")
      .reply(200, { upload_key: "upl_2", upload_url: `${uploadOrigin}/v1/uploads/upl_2?token=${uploadToken}` });
    const ctx = context();
    const error = (await core()
      .create(ctx, { sourcePath: file, language: "auto", waitForCompletion: true, timeoutMinutes: 60 })
      .catch((e: unknown) => e)) as CloudPlatformError;
    expect(error.code).toBe("CLOUDPLATFORM_UPLOAD_FAILED");
    expect(received).toHaveLength(3);
    const everything = [error.message, String(error.stack), JSON.stringify(error), ...ctx.lines].join("\n");
    expect(everything).not.toContain(uploadToken);
    expect(everything).not.toContain(uploadOrigin);
    expect(error.message).toContain("503");
  });

  it("does not retry a refusal: a 413 says the size limit", async () => {
    answers = [[413, { error: { code: "too_large", message: "over 2 GB" } }]];
    nock(api)
      .post("/v1/transcripts/upload")
      .reply(200, { uploadKey: "upl_3", uploadUrl: `${uploadOrigin}/v1/uploads/upl_3?token=${uploadToken}` });
    const error = (await core()
      .create(context(), { sourcePath: file, language: "auto", waitForCompletion: true, timeoutMinutes: 60 })
      .catch((e: unknown) => e)) as CloudPlatformError;
    expect(error.code).toBe("CLOUDPLATFORM_UPLOAD_FAILED");
    expect(received).toHaveLength(1);
    expect(error.message).toContain("413 too_large");
    expect(error.message).toContain("up to 2 GB");
  });
});

describe("Transcript diff", () => {
  const olds: TranscriptOutputs = {
    ...urlInputs(),
    glossary: { "pull you me": "Pulumi" },
    transcriptId: "tr_1",
    status: "done",
    text: "x",
  };
  const news = (over: Partial<TranscriptInputs>): TranscriptInputs => ({
    ...urlInputs(),
    glossary: { "pull you me": "Pulumi" },
    ...over,
  });

  it("shows no change for the same inputs", () => {
    expect(core().diff(context(), "tr_1", olds, news({}))).toMatchObject({ changes: false, replaces: [] });
  });

  it.each([
    ["url", { url: "https://media.example.com/other.mp3" }],
    ["language", { language: "de" }],
    ["glossary", { glossary: { kube: "Kubernetes" } }],
  ] as const)("replaces when %s changes", (key, over) => {
    const diff = core().diff(context(), "tr_1", olds, news(over));
    expect(diff.replaces).toEqual([key]);
    expect(diff.changes).toBe(true);
  });

  it("replaces when the file's content hash changes, but not when only its path does", () => {
    const fileOlds: TranscriptOutputs = {
      ...olds,
      url: undefined,
      sourcePath: "a.wav",
      sourceHash: "aaa",
    } as TranscriptOutputs;
    delete fileOlds.url;
    const fileNews = (over: Partial<TranscriptInputs>): TranscriptInputs => {
      const n = news({ sourcePath: "a.wav", sourceHash: "aaa", ...over });
      delete n.url;
      return n;
    };
    expect(core().diff(context(), "tr_1", fileOlds, fileNews({ sourceHash: "bbb" })).replaces).toEqual(["sourceHash"]);
    const moved = core().diff(context(), "tr_1", fileOlds, fileNews({ sourcePath: "media/a.wav" }));
    expect(moved).toMatchObject({ changes: true, replaces: [], changed: ["sourcePath"] });
  });

  it.each([
    ["webhookUrl", { webhookUrl: "https://hooks.example.com/t" }],
    ["waitForCompletion", { waitForCompletion: false }],
    ["timeoutMinutes", { timeoutMinutes: 5 }],
  ] as const)("updates in place when only %s changes", (key, over) => {
    expect(core().diff(context(), "tr_1", olds, news(over))).toMatchObject({
      changes: true,
      replaces: [],
      changed: [key],
    });
  });

  it("treats glossary key order as no change", () => {
    const a = { ...olds, glossary: { a: "1", b: "2" } };
    expect(core().diff(context(), "tr_1", a, news({ glossary: { b: "2", a: "1" } })).changes).toBe(false);
  });

  it("re-runs a job that ended in error", () => {
    const failed = { ...olds, status: "error" as const, errorCode: "insufficient_balance" };
    expect(core().diff(context(), "tr_1", failed, news({})).replaces).toEqual(["status"]);
  });

  it("updates a webhookUrl change without calling the API", async () => {
    const outs = await core().update(context(), "tr_1", olds, news({ webhookUrl: "https://hooks.example.com/t" }));
    expect(outs).toMatchObject({
      transcriptId: "tr_1",
      status: "done",
      text: "x",
      webhookUrl: "https://hooks.example.com/t",
    });
  });
});

describe("Transcript read and delete", () => {
  const stored: TranscriptOutputs = {
    ...urlInputs(),
    transcriptId: "tr_old",
    status: "done",
    text: "kept text",
    audioDurationSeconds: 30,
    priceUsd: 0.000333333333,
  };

  it("refresh brings a queued job up to date", async () => {
    nock(api)
      .get("/v1/transcripts/tr_q")
      .reply(200, { ...done, id: "tr_q" });
    const result = await core().read(context(), "tr_q", {
      ...stored,
      transcriptId: "tr_q",
      status: "queued",
      text: undefined,
    } as unknown as TranscriptOutputs);
    expect(result.outs).toMatchObject({ status: "done", text: "hello world" });
    expect(result.inputs).toEqual(urlInputs());
  });

  it("keeps the stored text after the 7-day retention, and says why", async () => {
    nock(api)
      .get("/v1/transcripts/tr_old")
      .reply(404, { error: { code: "not_found", message: "no transcript tr_old" } });
    const ctx = context();
    const result = await core().read(ctx, "tr_old", stored);
    expect(result.id).toBe("tr_old");
    expect(result.outs).toMatchObject({ text: "kept text", status: "done", priceUsd: 0.000333333333 });
    expect(result.outs?.expiredAt).toMatch(/^\d{4}-/);
    expect(ctx.lines.find((l) => l.startsWith("warn"))).toMatch(
      /no longer on the platform \(results are kept 7 days\)/,
    );
  });

  it("delete only forgets the transcript (the API has no delete)", async () => {
    await core().delete(context(), "tr_old", stored);
    // nock would fail on any request: no interceptor is defined.
  });
});

describe("Transcript through the dynamic-provider host", () => {
  it("hands the engine a partially created resource (id, outputs, __provider) at the deadline", async () => {
    nock(api).post("/v1/transcripts").query({ wait: "false" }).reply(202, { id: "tr_host", status: "queued" });
    nock(api).get("/v1/transcripts/tr_host").times(4).reply(200, { id: "tr_host", status: "processing" });
    const provider = toDynamicProvider(core(), host());
    const inputs = { ...urlInputs({ timeoutMinutes: 0.25 }), __provider: "serialized-shim", [nameKey]: "talk" };
    const error = (await provider.create(inputs).catch((e: unknown) => e)) as {
      id: string;
      properties: Record<string, unknown>;
      reasons: string[];
      message: string;
    };
    expect(error.id).toBe("tr_host");
    expect(error.properties).toMatchObject({
      transcriptId: "tr_host",
      status: "processing",
      __provider: "serialized-shim",
    });
    expect(error.message).toMatch(
      /^Transcript "talk": transcription job tr_host is still processing after the deadline/,
    );
  });
});
