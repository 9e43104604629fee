import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { needs } from "../../test/support/tools.mts";
import {
  makeAudio,
  makeSpeech,
  PLACEHOLDER_PREFIX,
  startAudioServer,
  startReceiver,
  speechTools,
  startService,
  waitForEnd,
  type AudioFiles,
  type SpeechFiles,
  type Harness,
  type Recorder,
} from "./fixtures/transcription-harness.js";

// docs/api-contract.md §8; spec §3 (transcript states), §4.3, §6, §8. Most tests transcribe silence,
// written in Node, and run on any machine; those that need speech (espeak-ng, MP3 by ffmpeg), a
// recognizer (pocketsphinx) or the emulator's audio converter (ffmpeg or sox, before an engine
// runs) declare those tools, and make the speech in the test itself.
let audio: AudioFiles;
let files: Recorder;

beforeAll(async () => {
  audio = makeAudio();
  files = await startAudioServer(audio.dir);
});
afterAll(async () => {
  await files?.close();
  if (audio) rmSync(audio.dir, { recursive: true, force: true });
});

/** Speech in the served folder, made once by the first test that asks (it declared speechTools). */
let madeSpeech: Promise<SpeechFiles> | undefined;
const speech = (): Promise<SpeechFiles> => (madeSpeech ??= makeSpeech(audio.dir));
const withSpeech = needs(...speechTools);

describe("POST /v1/transcripts with a url", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startService({ initialBalanceUsd: 1 });
  });
  afterAll(() => h.close());

  it("answers 200 done with text within the synchronous wait, and charges the price", withSpeech, async () => {
    await speech();
    const before = h.service.getBalance();
    const { status, body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/speech.wav` });
    expect(status).toBe(200);
    expect(body.status).toBe("done");
    expect(body.id).toMatch(/^tr_/);
    expect(typeof body.text).toBe("string");
    expect(body.text.length).toBeGreaterThan(0);
    expect(body.audio_duration).toBeGreaterThan(2);
    expect(body.audio_duration).toBeLessThan(5);
    expect(body.price_usd).toBeCloseTo(0.02 / 60, 12);
    expect(body.error).toBeNull();
    expect(h.service.getBalance()).toBeCloseTo(before - 0.02 / 60, 12);
    const again = await h.call("GET", `/v1/transcripts/${body.id}`);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(body);
  });

  it(
    "transcribes espeak-ng speech with pocketsphinx, never the placeholder",
    needs(...speechTools, "pocketsphinx"),
    async () => {
      await speech();
      const { body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/speech.mp3`, language: "en" });
      expect(body.status).toBe("done");
      expect(body.text.trim().length).toBeGreaterThan(0);
      // pocketsphinx hears espeak-ng poorly ("the quick brown fox soda really old"): assert loosely.
      expect(body.text.startsWith(PLACEHOLDER_PREFIX)).toBe(false);
    },
  );

  it("charges per started minute: 61 s costs two minutes", async () => {
    const before = h.service.getBalance();
    const { status, body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/silence61.wav` });
    expect(status).toBe(200);
    expect(body.status).toBe("done");
    expect(body.audio_duration).toBeCloseTo(61, 1);
    expect(body.price_usd).toBeCloseTo((2 * 0.02) / 60, 12);
    expect(h.service.getBalance()).toBeCloseTo(before - (2 * 0.02) / 60, 12);
  });

  it("ends in error with download_failed for a url answering 404, charging nothing", async () => {
    const before = h.service.getBalance();
    const { status, body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/missing.wav` });
    expect(status).toBe(200);
    expect(body.status).toBe("error");
    expect(body.error).toMatch(/^download_failed: /);
    expect(body.text).toBeNull();
    expect(h.service.getBalance()).toBe(before);
  });

  it("ends in error with unsupported_media for bytes that are not audio", async () => {
    writeFileSync(join(audio.dir, "notes.txt"), "this is text, not audio\n".repeat(50));
    const { body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/notes.txt` });
    expect(body.status).toBe("error");
    expect(body.error).toMatch(/^unsupported_media: /);
  });

  it("follows redirects through the same checks", async () => {
    const ok = await h.call("POST", "/v1/transcripts", {
      url: `${files.url}/redirect?to=${encodeURIComponent(`${files.url}/silence5.wav`)}`,
    });
    expect(ok.body.status).toBe("done");
    const refused = await h.call("POST", "/v1/transcripts", {
      url: `${files.url}/redirect?to=${encodeURIComponent("http://10.0.0.1/a.wav")}`,
    });
    expect(refused.body.status).toBe("error");
    expect(refused.body.error).toMatch(/^url_not_allowed: /);
  });

  it("counts requests per route template", async () => {
    const { body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/silence5.wav` });
    await h.call("GET", `/v1/transcripts/${body.id}`);
    expect(h.counts.get("transcription POST /v1/transcripts")).toBeGreaterThan(0);
    expect(h.counts.get("transcription GET /v1/transcripts/{id}")).toBeGreaterThan(0);
  });
});

describe("asynchronous answers", () => {
  it("answers 202 with the current status when the job outlasts the synchronous wait", async () => {
    const h = await startService({ syncWaitMs: 100 }, { processingDelayMs: 1500 });
    try {
      const { status, body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/silence5.wav` });
      expect(status).toBe(202);
      expect(["queued", "processing"]).toContain(body.status);
      const ended = await waitForEnd(h, body.id);
      expect(ended.status).toBe("done");
    } finally {
      await h.close();
    }
  });

  it("answers 202 queued at once with wait=false, then done via GET", async () => {
    // The job takes 1.5 s: an answer that waited for it could not come sooner, even on a busy machine.
    const h = await startService({}, { processingDelayMs: 1_500 });
    try {
      const started = Date.now();
      const { status, body } = await h.call("POST", "/v1/transcripts?wait=false", { url: `${files.url}/silence5.wav` });
      expect(status).toBe(202);
      expect(body.status).toBe("queued");
      expect(Date.now() - started).toBeLessThan(1_200);
      const ended = await waitForEnd(h, body.id);
      expect(ended.status).toBe("done");
      expect(ended.completed_at).not.toBeNull();
    } finally {
      await h.close();
    }
  });

  it("runs at most two jobs at once: the third one waits queued", async () => {
    const h = await startService({}, { processingDelayMs: 1000 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const { body } = await h.call("POST", "/v1/transcripts?wait=false", { url: `${files.url}/silence5.wav` });
        ids.push(body.id);
      }
      await new Promise((resolve) => setTimeout(resolve, 400));
      const third = await h.call("GET", `/v1/transcripts/${ids[2]}`);
      expect(third.body.status).toBe("queued");
      for (const id of ids) expect((await waitForEnd(h, id)).status).toBe("done");
    } finally {
      await h.close();
    }
  });
});

describe("uploads", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startService();
  });
  afterAll(() => h.close());

  it("upload → PUT → create with uploadKey → done; the key is usable once", async () => {
    const slot = await h.call("POST", "/v1/transcripts/upload", {});
    expect(slot.status).toBe(200);
    expect(slot.body.uploadKey).toMatch(/^upl_/);
    expect(slot.body.uploadUrl.startsWith(`${h.url}/v1/uploads/${slot.body.uploadKey}?token=`)).toBe(true);
    expect(Date.parse(slot.body.expires_at)).toBeGreaterThan(Date.now());
    const put = await fetch(slot.body.uploadUrl, { method: "PUT", body: readFileSync(audio.silence5) });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ uploadKey: slot.body.uploadKey, size: statSync(audio.silence5).size });
    const created = await h.call("POST", "/v1/transcripts", { uploadKey: slot.body.uploadKey });
    expect(created.status).toBe(200);
    expect(created.body.status).toBe("done");
    expect(created.body.audio_duration).toBeCloseTo(5, 1);
    const reused = await h.call("POST", "/v1/transcripts", { uploadKey: slot.body.uploadKey });
    expect(reused.status).toBe(400);
    expect(reused.body.error.code).toBe("validation_error");
  });

  it("refuses a PUT with a wrong or missing token, without storing anything", async () => {
    const slot = await h.call("POST", "/v1/transcripts/upload", {});
    const url = new URL(slot.body.uploadUrl);
    url.searchParams.set("token", "wrong");
    expect((await fetch(url, { method: "PUT", body: "x" })).status).toBe(404);
    url.searchParams.delete("token");
    expect((await fetch(url, { method: "PUT", body: "x" })).status).toBe(404);
    const created = await h.call("POST", "/v1/transcripts", { uploadKey: slot.body.uploadKey });
    expect(created.status).toBe(400);
    expect(created.body.error.message).toMatch(/PUT the file/);
  });

  it("refuses a declared size or content-length over 2 GB with 413 too_large", async () => {
    const declared = await h.call("POST", "/v1/transcripts/upload", { size: 3 * 1024 ** 3 });
    expect(declared.status).toBe(413);
    expect(declared.body.error.code).toBe("too_large");
    const slot = await h.call("POST", "/v1/transcripts/upload", {});
    const { request } = await import("node:http");
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        slot.body.uploadUrl,
        { method: "PUT", headers: { "content-length": String(2 * 1024 ** 3 + 1) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.write(Buffer.alloc(1024));
    });
    expect(status).toBe(413);
    const leftovers = readdirSync(join(h.dataDir, "transcription", "uploads")).filter((name) => name.endsWith(".part"));
    expect(leftovers).toEqual([]);
  });

  it("never puts the upload token in a log line", () => {
    expect(JSON.stringify(h.logs)).not.toMatch(/token=/);
  });
});

describe("request validation", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startService();
  });
  afterAll(() => h.close());

  it("answers 401 without the API key", async () => {
    for (const [method, path] of [
      ["POST", "/v1/transcripts"],
      ["POST", "/v1/transcripts/upload"],
      ["GET", "/v1/transcripts/tr_000000000000000000000000"],
    ] as const) {
      const { status, body } = await h.call(
        method,
        path,
        method === "POST" ? { url: `${files.url}/speech.wav` } : undefined,
        {
          authorization: "cp-wrong",
        },
      );
      expect(status).toBe(401);
      expect(body.error.code).toBe("unauthorized");
    }
  });

  it.each([
    ["both url and uploadKey", { url: "http://127.0.0.1/a.wav", uploadKey: "upl_000000000000000000000000" }],
    ["neither url nor uploadKey", { language: "en" }],
    ["an unknown language", { url: "http://127.0.0.1/a.wav", language: "xx" }],
    ["a three-letter language", { url: "http://127.0.0.1/a.wav", language: "eng" }],
    [
      "101 glossary entries",
      {
        url: "http://127.0.0.1/a.wav",
        glossary: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`w${i}`, "x"])),
      },
    ],
    ["a glossary key over 100 characters", { url: "http://127.0.0.1/a.wav", glossary: { ["k".repeat(101)]: "x" } }],
    ["a glossary value over 100 characters", { url: "http://127.0.0.1/a.wav", glossary: { k: "v".repeat(101) } }],
    ["a non-string glossary value", { url: "http://127.0.0.1/a.wav", glossary: { k: 1 } }],
    ["an invalid url", { url: "not a url" }],
  ])("refuses %s with 400 validation_error", async (_name, body) => {
    const answer = await h.call("POST", "/v1/transcripts", body);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe("validation_error");
    expect(h.service.countTranscripts()).toBe(0);
  });

  it("accepts auto, yue, haw and exactly 100 glossary entries of 100 characters", async () => {
    for (const language of ["auto", "yue", "haw"]) {
      const { status } = await h.call("POST", "/v1/transcripts?wait=false", {
        url: `${files.url}/silence5.wav`,
        language,
      });
      expect(status).toBe(202);
    }
    const glossary = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`${i}`.padEnd(100, "k"), "v".repeat(100)]),
    );
    const { status } = await h.call("POST", "/v1/transcripts?wait=false", {
      url: `${files.url}/silence5.wav`,
      glossary,
    });
    expect(status).toBe(202);
  });

  it("refuses non-http(s) urls and webhooks with 400 url_not_allowed", async () => {
    for (const body of [
      { url: "file:///etc/passwd" },
      { url: "ftp://example.com/a.wav" },
      { url: `${files.url}/a.wav`, webhookUrl: "gopher://x/" },
    ]) {
      const answer = await h.call("POST", "/v1/transcripts", body);
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("url_not_allowed");
    }
  });

  it("answers 404 not_found for unknown transcripts and routes", async () => {
    const unknown = await h.call("GET", "/v1/transcripts/tr_000000000000000000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("not_found");
    expect((await h.call("GET", "/v1/nothing")).status).toBe(404);
  });
});

describe("balance", () => {
  it("ends in error insufficient_balance and charges nothing when the balance cannot cover the price", async () => {
    const h = await startService({ initialBalanceUsd: 0.0005 });
    try {
      const { status, body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/silence61.wav` });
      expect(status).toBe(200);
      expect(body.status).toBe("error");
      expect(body.error).toBe("insufficient_balance: the balance (US$0.0005) cannot cover the price (US$0.000667)");
      expect(h.service.getBalance()).toBe(0.0005);
      const small = await h.call("POST", "/v1/transcripts", { url: `${files.url}/silence5.wav` });
      expect(small.body.status).toBe("done");
      expect(h.service.getBalance()).toBeCloseTo(0.0005 - 0.02 / 60, 12);
    } finally {
      await h.close();
    }
  });

  it("holds the price while processing and gives it back when the job fails", async () => {
    const h = await startService({ initialBalanceUsd: 1, transcriber: "false" }, { processingDelayMs: 800 });
    try {
      const { body } = await h.call("POST", "/v1/transcripts?wait=false", { url: `${files.url}/silence5.wav` });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(h.service.getBalance()).toBeCloseTo(1 - 0.02 / 60, 12);
      const ended = await waitForEnd(h, body.id);
      expect(ended.status).toBe("error");
      expect(ended.error).toMatch(/^engine_failed: /);
      expect(h.service.getBalance()).toBe(1);
    } finally {
      await h.close();
    }
  });
});

describe("speech engines", () => {
  // The engine gets the MP3 converted by ffmpeg; the fake engine reads it back with sox's soxi.
  it(
    "runs the --transcriber command with a 16 kHz mono WAV as last argument",
    needs(...speechTools, "sox"),
    async () => {
      await speech();
      const script = join(audio.dir, "fake-engine.sh");
      writeFileSync(script, '#!/bin/sh\nsoxi -r "$1"; soxi -c "$1"; echo "lang=$CLOUDPLATFORM_TRANSCRIBE_LANGUAGE"\n', {
        mode: 0o755,
      });
      const h = await startService({ transcriber: script });
      try {
        const { body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/speech.mp3`, language: "de" });
        expect(body.status).toBe("done");
        expect(body.text).toBe("16000 1 lang=de");
        expect(body.language).toBe("de");
      } finally {
        await h.close();
      }
    },
  );

  // The emulator converts the audio with ffmpeg before any engine runs.
  it(
    "applies the glossary to the engine's text: whole words, case-insensitive, one pass",
    needs("ffmpeg"),
    async () => {
      const script = join(audio.dir, "fixed-engine.sh");
      writeFileSync(script, "#!/bin/sh\necho 'the Quick brown fox met the quickest FOX of foxes'\n", { mode: 0o755 });
      const h = await startService({ transcriber: script });
      try {
        const { body } = await h.call("POST", "/v1/transcripts", {
          url: `${files.url}/silence5.wav`,
          glossary: { QUICK: "fast", fox: "Fox Corp", "brown fox": "brown-fox", corp: "never" },
        });
        expect(body.status).toBe("done");
        expect(body.text).toBe("the fast brown-fox met the quickest Fox Corp of foxes");
      } finally {
        await h.close();
      }
    },
  );

  it(
    "labels the text as a placeholder when pocketsphinx has no model for the language",
    needs(...speechTools, "pocketsphinx"),
    async () => {
      await speech();
      const h = await startService();
      try {
        const { body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/speech.wav`, language: "fr" });
        expect(body.status).toBe("done");
        expect(body.text).toMatch(/^\[emulator: .*no model for language "fr"; audio of 2\.\d s received\]$/);
      } finally {
        await h.close();
      }
    },
  );
});

describe("webhook", () => {
  // A delivery is awaited as an event, then 500 ms more for a second one that must not come: a fixed
  // wait alone missed the first delivery on a loaded machine (CI, three files at a time on two cores).
  const delivered = { timeout: 15_000, interval: 50 };

  it("POSTs {data:{id,status}} exactly once when the transcript ends", async () => {
    const receiver = await startReceiver();
    const h = await startService();
    try {
      const { body } = await h.call("POST", "/v1/transcripts?wait=false", {
        url: `${files.url}/silence5.wav`,
        webhookUrl: `${receiver.url}/hook?x=1`,
      });
      expect(body.webhook_url).toBe(`${receiver.url}/hook?x=1`);
      await waitForEnd(h, body.id);
      await vi.waitFor(() => expect(receiver.requests.length).toBeGreaterThan(0), delivered);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.requests).toEqual([
        { path: "/hook?x=1", body: JSON.stringify({ data: { id: body.id, status: "done" } }) },
      ]);
      const failed = await h.call("POST", "/v1/transcripts", {
        url: `${files.url}/missing.wav`,
        webhookUrl: `${receiver.url}/hook`,
      });
      await vi.waitFor(() => expect(receiver.requests.length).toBeGreaterThan(1), delivered);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.requests.map((r) => JSON.parse(r.body))).toEqual([
        { data: { id: body.id, status: "done" } },
        { data: { id: failed.body.id, status: "error" } },
      ]);
    } finally {
      await h.close();
      await receiver.close();
    }
  });

  it("does not retry when the receiver is down", async () => {
    const receiver = await startReceiver();
    const deadUrl = receiver.url;
    await receiver.close();
    const h = await startService();
    try {
      const { body } = await h.call("POST", "/v1/transcripts", {
        url: `${files.url}/silence5.wav`,
        webhookUrl: `${deadUrl}/hook`,
      });
      expect(body.status).toBe("done");
      const notDelivered = () => h.logs.filter((l) => l.message === "transcription: webhook not delivered");
      await vi.waitFor(() => expect(notDelivered().length).toBeGreaterThan(0), delivered);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(notDelivered()).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});

describe("retention and persistence", () => {
  it("answers 404 once the retention has passed", async () => {
    const h = await startService({ retentionDays: 0.00001 });
    try {
      const { body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/silence5.wav` });
      expect(body.status).toBe("done");
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const gone = await h.call("GET", `/v1/transcripts/${body.id}`);
      expect(gone.status).toBe(404);
      expect(h.service.countTranscripts()).toBe(0);
    } finally {
      await h.close();
    }
  });

  it("keeps transcripts and the balance across a restart, and resumes unfinished jobs", async () => {
    const first = await startService({ initialBalanceUsd: 1 }, { processingDelayMs: 5000 });
    try {
      const queued = await first.call("POST", "/v1/transcripts?wait=false", { url: `${files.url}/silence5.wav` });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(first.service.getBalance()).toBeCloseTo(1 - 0.02 / 60, 12);
      await first.stop();

      const restarted = await startService({ dataDir: first.dataDir, initialBalanceUsd: 1 });
      try {
        const resumed = await waitForEnd(restarted, queued.body.id);
        expect(resumed.status).toBe("done");
        expect(restarted.service.getBalance()).toBeCloseTo(1 - 0.02 / 60, 12);
        restarted.service.setBalance(0.5);
        await new Promise((resolve) => setTimeout(resolve, 100));
      } finally {
        await restarted.stop();
      }

      const third = await startService({ dataDir: first.dataDir, initialBalanceUsd: 1 });
      try {
        const kept = await third.call("GET", `/v1/transcripts/${queued.body.id}`);
        expect(kept.status).toBe(200);
        expect(kept.body.status).toBe("done");
        expect(third.service.getBalance()).toBe(0.5);
      } finally {
        await third.close();
      }
    } finally {
      rmSync(first.dataDir, { recursive: true, force: true });
    }
  });

  it("reset() removes transcripts and restores the initial balance", async () => {
    const h = await startService({ initialBalanceUsd: 2 });
    try {
      const { body } = await h.call("POST", "/v1/transcripts", { url: `${files.url}/silence5.wav` });
      expect(h.service.countTranscripts()).toBe(1);
      await h.service.reset();
      expect(h.service.countTranscripts()).toBe(0);
      expect(h.service.getBalance()).toBe(2);
      expect((await h.call("GET", `/v1/transcripts/${body.id}`)).status).toBe(404);
      expect((await h.call("POST", "/v1/transcripts", { url: `${files.url}/silence5.wav` })).body.status).toBe("done");
    } finally {
      await h.close();
    }
  });
});
