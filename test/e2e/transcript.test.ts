// examples/transcript with the real Pulumi engine against a real emulator that may reach loopback:
// speech made with espeak-ng, fetched from a URL or uploaded from a file, transcribed by the
// emulator's speech engine; the webhook, replacement, in-place update, refusals at preview, a job
// the balance cannot pay for, and destroy.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { needs } from "../support/tools.mts";
import { type Emulator } from "../support/emulator.js";
import { useEmulator, useExampleStack } from "../support/hooks.js";
import { emulatorStats } from "../support/platform.mts";
import { expectAtRest } from "./support/lifecycle.js";
import { changesOtherThanSame, opsOf, output, type RunResult } from "../support/runner.js";
import {
  balance,
  expectedPrice,
  launchTranscriptEmulator,
  LoopbackReceiver,
  platformTranscript,
  setBalance,
  speak,
  transcriptConfig,
  transcriptKey,
  transcriptTools,
  transcriptsInState,
} from "./support/transcript.js";

const createJobs = "POST /v1/transcripts";

async function jobsCreated(emulator: Emulator): Promise<number> {
  return (await emulatorStats(emulator)).requests[createJobs] ?? 0;
}

function numberOutput(result: RunResult, name: string): number {
  const value = result.outputs?.[name]?.value;
  if (typeof value !== "number") throw new Error(`output "${name}" is ${JSON.stringify(value)}`);
  return value;
}

describe("examples/transcript", needs(...transcriptTools), () => {
  const transcription = useEmulator(launchTranscriptEmulator);
  const byUrl = useExampleStack("transcript", { on: transcription });
  const byFile = useExampleStack("transcript", { on: transcription });
  let receiver: LoopbackReceiver;
  let mediaDir: string;
  let audioFile: string;
  let fromUrl: RunResult;
  let fromFile: RunResult;

  beforeAll(async () => {
    mediaDir = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-e2e-transcript-media-"));
    await speak(path.join(mediaDir, "talk.wav"), "the quick brown fox jumps over the lazy dog");
    audioFile = await speak(path.join(mediaDir, "interview.wav"), "hello world this is a test of speech recognition");
    receiver = await LoopbackReceiver.start(mediaDir);
  });
  afterAll(async () => {
    await receiver?.close();
    if (mediaDir) await rm(mediaDir, { recursive: true, force: true });
  });

  it("a URL served from loopback: up waits for the job and gives its text", async () => {
    fromUrl = await byUrl.stack.up(
      transcriptConfig({
        audioUrl: receiver.mediaUrl("talk.wav"),
        language: "en",
        webhookUrl: receiver.hookUrl("url"),
      }),
    );
    expect(opsOf(fromUrl, "talk")).toEqual(["create"]);
    expect(output(fromUrl, "status")).toBe("done");
    expect(output(fromUrl, "transcriptId")).toMatch(/^tr_/);
    expect(output(fromUrl, "text").trim()).not.toBe("");
    // The job was polled to its end, and the wait was reported in the deployment's output.
    expect(fromUrl.stdout).toMatch(new RegExp(`job ${output(fromUrl, "transcriptId")} is done \\(waited \\d+s\\)`));
    const onPlatform = await platformTranscript(transcription.emulator, output(fromUrl, "transcriptId"));
    expect(onPlatform).toMatchObject({ status: "done", text: output(fromUrl, "text") });
  });

  it("the webhook receiver on loopback gets exactly one POST for the job", async () => {
    const hooks = await receiver.waitForHooks("url", 1);
    expect(hooks.map((h) => h.body)).toEqual([{ data: { id: output(fromUrl, "transcriptId"), status: "done" } }]);
  });

  it("is at rest after up: preview, refresh and a second up change nothing and start no job", async () => {
    const jobs = await jobsCreated(transcription.emulator);
    await expectAtRest(byUrl.stack);
    const again = await byUrl.stack.up();
    expect(changesOtherThanSame(again)).toEqual({});
    expect(output(again, "transcriptId")).toBe(output(fromUrl, "transcriptId"));
    expect(await jobsCreated(transcription.emulator)).toBe(jobs);
    expect(receiver.hooksAt("url")).toHaveLength(1);
  });

  it("a file upload: up gives the duration and the price per started minute", async () => {
    const before = (await emulatorStats(transcription.emulator)).requests;
    fromFile = await byFile.stack.up(transcriptConfig({ audioFile, language: "en" }));
    const after = (await emulatorStats(transcription.emulator)).requests;
    expect(output(fromFile, "status")).toBe("done");
    expect(output(fromFile, "text").trim()).not.toBe("");
    const seconds = numberOutput(fromFile, "audioDurationSeconds");
    expect(seconds).toBeGreaterThan(0);
    expect(numberOutput(fromFile, "priceUsd")).toBeCloseTo(expectedPrice(seconds), 12);
    // One upload ticket, one PUT of the file, one job: no retry, no second job.
    for (const route of ["POST /v1/transcripts/upload", "PUT /v1/uploads/{key}", createJobs]) {
      expect((after[route] ?? 0) - (before[route] ?? 0), route).toBe(1);
    }
  });

  it("a changed file is planned as a replacement, and up makes a new transcript of it", async () => {
    await speak(audioFile, "seven green apples fell from the old tree");
    const preview = await byFile.stack.preview(transcriptConfig({ language: "en" }));
    expect(opsOf(preview, "talk")).toContain("replace");

    const replaced = await byFile.stack.up(transcriptConfig({ language: "en" }));
    expect(output(replaced, "status")).toBe("done");
    expect(output(replaced, "transcriptId")).not.toBe(output(fromFile, "transcriptId"));
    expect(output(replaced, "text")).not.toBe(output(fromFile, "text"));
    fromFile = replaced;
  });

  it("changing only webhookUrl is an in-place update that starts no job", async () => {
    const jobs = await jobsCreated(transcription.emulator);
    const hooked = transcriptConfig({ language: "en", webhookUrl: receiver.hookUrl("file") });
    const preview = await byFile.stack.preview(hooked);
    expect(opsOf(preview, "talk")).toEqual(["update"]);

    const updated = await byFile.stack.up(hooked);
    expect(updated.changes).toMatchObject({ update: 1 });
    expect(output(updated, "transcriptId")).toBe(output(fromFile, "transcriptId"));
    expect(await jobsCreated(transcription.emulator)).toBe(jobs);
    expect(receiver.hooksAt("file")).toEqual([]);
  });

  it("bad input fails at preview naming the resource and the property, with no write", async () => {
    const before = await emulatorStats(transcription.emulator);

    const badLanguage = await byFile.stack.previewFailing(transcriptConfig({ language: "xx" }));
    expect(badLanguage.ok).toBe(false);
    expect(badLanguage.error).toMatch(/Transcript "talk"/);
    expect(badLanguage.error).toMatch(/language/);
    expect(badLanguage.error).toContain('"xx" is not a supported language');

    const glossary = JSON.stringify(
      Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`term${i}`, `Term ${i}`])),
    );
    const bigGlossary = await byFile.stack.previewFailing(transcriptConfig({ language: "en", glossary }));
    expect(bigGlossary.ok).toBe(false);
    expect(bigGlossary.error).toMatch(/Transcript "talk"/);
    expect(bigGlossary.error).toMatch(/glossary/);
    expect(bigGlossary.error).toContain("101 entries");

    const after = await emulatorStats(transcription.emulator);
    expect(after.writes).toBe(before.writes);
    expect(after.requests).toEqual(before.requests);
  });

  it("a job the balance cannot pay for fails up with insufficient_balance and what to do; nothing done is stored for it", async () => {
    await setBalance(transcription.emulator, 0);
    await speak(audioFile, "a third recording that nobody will pay for");
    const failure = await byFile.stack.up(transcriptConfig({ language: "en" }), [transcriptKey("glossary")]).then(
      () => "",
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    expect(failure).toContain("insufficient_balance");
    expect(failure).toMatch(/Add funds or enable auto-recharge/);
    const failedId = /transcription job (tr_[A-Za-z0-9_-]+) failed/.exec(failure)?.[1];
    expect(failedId, failure).toBeDefined();
    expect(await platformTranscript(transcription.emulator, failedId!)).toMatchObject({ status: "error" });
    expect(await balance(transcription.emulator)).toBe(0);

    // The replacement failed, so the state still holds the earlier transcript only.
    const transcripts = await transcriptsInState(byFile.stack);
    expect(transcripts.map((t) => t.outputs?.transcriptId)).toEqual([output(fromFile, "transcriptId")]);
    expect(transcripts.filter((t) => t.outputs?.status === "done" && t.outputs?.transcriptId === failedId)).toEqual([]);
  });

  it("destroy removes the transcripts from the state without touching the balance", async () => {
    await setBalance(transcription.emulator, 5);
    const jobs = await jobsCreated(transcription.emulator);
    for (const stack of [byUrl.stack, byFile.stack]) {
      const destroyed = await stack.destroy();
      expect(destroyed.changes?.delete ?? 0).toBeGreaterThan(0);
      expect(await transcriptsInState(stack)).toEqual([]);
    }
    expect(await balance(transcription.emulator)).toBe(5);
    expect(await jobsCreated(transcription.emulator)).toBe(jobs);
  });
});
