import { mkdtempSync, rmSync } from "node:fs";
import type { LookupAddress } from "node:dns";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ResolveAll } from "../src/transcription/safe-fetch.js";
import {
  makeAudio,
  startAudioServer,
  startService,
  waitForEnd,
  type Recorder,
} from "./fixtures/transcription-harness.js";

// Refusing private and internal addresses (spec §7, docs/api-contract.md §8.2, emulator-notes "Refusing
// private and internal addresses"). Every refusal must happen before connecting: the audio server
// listens on the port each loopback-ish URL names and must see no request. Only the fetches that are
// let through need audio in its folder: silence, written without any tool.
let audioDir: string;
let files: Recorder;
let port: string;

beforeAll(async () => {
  audioDir = mkdtempSync(join(tmpdir(), "cp-audio-"));
  files = await startAudioServer(audioDir);
  port = new URL(files.url).port;
});
afterAll(async () => {
  await files?.close();
  if (audioDir) rmSync(audioDir, { recursive: true, force: true });
});

const loopbackHosts = ["127.0.0.1", "127.1", "2130706433", "0x7f.0.0.1", "[::1]", "[::ffff:127.0.0.1]"];
const internalHosts = [
  "0.0.0.0",
  "[::]",
  "169.254.169.254",
  "10.0.0.1",
  "192.168.1.1",
  "172.16.0.1",
  "100.64.0.1",
  "[fd00::1]",
  "[fe80::1]",
  "224.0.0.1",
];

describe("with loopback refused (the default)", () => {
  it.each([...loopbackHosts, ...internalHosts])(
    "refuses http://%s with 400 url_not_allowed, never connecting",
    async (host) => {
      const h = await startService({ allowLoopbackUrls: false });
      try {
        const before = files.requests.length;
        const answer = await h.call("POST", "/v1/transcripts", { url: `http://${host}:${port}/speech.wav` });
        expect(answer.status).toBe(400);
        expect(answer.body.error.code).toBe("url_not_allowed");
        expect(h.service.countTranscripts()).toBe(0);
        expect(files.requests.length).toBe(before);
        const hook = await h.call("POST", "/v1/transcripts", {
          url: "http://93.184.216.34/a.wav",
          webhookUrl: `http://${host}:${port}/hook`,
        });
        expect(hook.status).toBe(400);
        expect(hook.body.error.code).toBe("url_not_allowed");
      } finally {
        await h.close();
      }
    },
  );

  it("refuses localhost (a name resolving to loopback) with 400 url_not_allowed", async () => {
    const h = await startService({ allowLoopbackUrls: false });
    try {
      const before = files.requests.length;
      const answer = await h.call("POST", "/v1/transcripts", { url: `http://localhost:${port}/speech.wav` });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("url_not_allowed");
      expect(answer.body.error.message).toMatch(/localhost resolves to/);
      expect(files.requests.length).toBe(before);
    } finally {
      await h.close();
    }
  });

  it("refuses a name that resolves to a public address at check time and to loopback at connect time (rebinding)", async () => {
    const answers: LookupAddress[][] = [[{ address: "93.184.216.34", family: 4 }]];
    const resolveAll: ResolveAll = (_host, callback) =>
      callback(null, answers.shift() ?? [{ address: "127.0.0.1", family: 4 }]);
    const h = await startService({ allowLoopbackUrls: false }, { resolveAll });
    try {
      const before = files.requests.length;
      const answer = await h.call("POST", "/v1/transcripts", { url: `http://audio.example:${port}/speech.wav` });
      expect(answer.status).toBe(200);
      expect(answer.body.status).toBe("error");
      expect(answer.body.error).toMatch(/^url_not_allowed: audio\.example resolves to 127\.0\.0\.1 \(loopback\)/);
      expect(files.requests.length).toBe(before);
    } finally {
      await h.close();
    }
  });

  it("refuses a name with any private address among its answers", async () => {
    const resolveAll: ResolveAll = (_host, callback) =>
      callback(null, [
        { address: "93.184.216.34", family: 4 },
        { address: "::ffff:10.1.2.3", family: 6 },
      ]);
    const h = await startService({ allowLoopbackUrls: false }, { resolveAll });
    try {
      const answer = await h.call("POST", "/v1/transcripts", { url: "http://mixed.example/a.wav" });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toMatch(/10\.1\.2\.3 \(private\)/);
    } finally {
      await h.close();
    }
  });
});

describe("with --allow-loopback-urls", () => {
  describe("with audio to fetch", () => {
    beforeAll(() => {
      makeAudio(audioDir);
    });

    it.each(loopbackHosts)("fetches from http://%s", async (host) => {
      const h = await startService({ allowLoopbackUrls: true });
      try {
        const answer = await h.call("POST", "/v1/transcripts", { url: `http://${host}:${port}/silence5.wav` });
        expect(answer.status).toBe(200);
        if (host === "[::1]") {
          // The audio server listens on 127.0.0.1 only: the connection is tried (allowed) and refused by the OS.
          expect(answer.body.error).toMatch(/^download_failed: .*ECONNREFUSED/);
        } else {
          expect(answer.body.status).toBe("done");
        }
      } finally {
        await h.close();
      }
    });

    it("fetches from localhost", async () => {
      const h = await startService({ allowLoopbackUrls: true });
      try {
        const answer = await h.call("POST", "/v1/transcripts?wait=false", {
          url: `http://localhost:${port}/silence5.wav`,
        });
        expect((await waitForEnd(h, answer.body.id)).status).toBe("done");
      } finally {
        await h.close();
      }
    });
  });

  it.each(internalHosts)("still refuses http://%s, never connecting", async (host) => {
    const h = await startService({ allowLoopbackUrls: true });
    try {
      const before = files.requests.length;
      const answer = await h.call("POST", "/v1/transcripts", { url: `http://${host}:${port}/speech.wav` });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe("url_not_allowed");
      expect(files.requests.length).toBe(before);
    } finally {
      await h.close();
    }
  });

  it("still refuses a name resolving to a private address at connect time", async () => {
    const answers: LookupAddress[][] = [[{ address: "127.0.0.1", family: 4 }]];
    const resolveAll: ResolveAll = (_host, callback) =>
      callback(null, answers.shift() ?? [{ address: "192.168.1.1", family: 4 }]);
    const h = await startService({ allowLoopbackUrls: true }, { resolveAll });
    try {
      const answer = await h.call("POST", "/v1/transcripts", { url: `http://audio.example:${port}/speech.wav` });
      expect(answer.body.status).toBe("error");
      expect(answer.body.error).toMatch(/^url_not_allowed: audio\.example resolves to 192\.168\.1\.1 \(private\)/);
    } finally {
      await h.close();
    }
  });
});
