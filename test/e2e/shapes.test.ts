// The provider, unchanged, with the real engine against each shape the emulator plays
// (docs/api-contract.md §9.2): platforms that follow the spec but fill its gaps another way. Each
// shape runs the examples as written (credential-lifecycle, transcript) on its own emulator, and a
// zone's life through its core (the engine adds nothing a bucket does not already show); the three
// shapes run side by side, each one's steps in order. The transcript's speech needs espeak-ng,
// ffmpeg and pocketsphinx: it runs in tests of its own, which declare them.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, startEmulator, type ShapeName } from "../../emulator/src/index.js";
import { listZones } from "../../provider/platform/dns-zone/api.js";
import { closePools } from "../../provider/client.js";
import { dnsZoneCore } from "../../provider/resources/dns-zone/core.js";
import { hostFor, management, type Emulator } from "../support/emulator.js";
import { withExampleStack } from "../support/hooks.js";
import { expectAtRest, expectDestroyedClean } from "./support/lifecycle.js";
import { changesOtherThanSame, opsOf, output, type Config } from "../support/runner.js";
import { accessFrom, roundTrip } from "./support/s3.js";
import { needs } from "../support/tools.mts";
import { LoopbackReceiver, speak, transcriptConfig, transcriptTools } from "./support/transcript.js";

const shapes: readonly ShapeName[] = ["envelope", "flat", "by-name"];

const lifecycle = (settings: Record<string, string>): Config =>
  Object.fromEntries(
    Object.entries(settings).map(([key, value]) => [`cloudplatform-credential-lifecycle:${key}`, { value }]),
  );

interface ExportedResource {
  readonly urn: string;
  readonly outputs?: Record<string, unknown>;
}

/** The credential's outputs in a `pulumi stack export`. */
function credentialIn(exported: string): Record<string, unknown> {
  const state = JSON.parse(exported) as { deployment: { resources?: ExportedResource[] } };
  const credential = state.deployment.resources?.find((r) => r.urn.endsWith("::uploader"));
  if (!credential?.outputs) throw new Error("no credential in the state");
  return credential.outputs;
}

function expectNoSecret(exported: string, secrets: readonly string[]): void {
  for (const value of secrets) expect(exported.includes(value), "a secret in `pulumi stack export`").toBe(false);
}

/**
 * A DNS zone created, read, looked up by name, deleted, read as gone and deleted again, through the
 * core the engine would call, against the emulator as the provider host would configure it.
 */
async function zoneThroughTheCore(emulator: Emulator, name: string): Promise<void> {
  const ctx = hostFor(emulator).context("DnsZone", "zone");
  const created = await dnsZoneCore.create(ctx, { name, adopt: false });
  expect(created.outs, "zone create").toMatchObject({ zoneId: created.id, name, nameservers: expect.any(Array) });
  expect(await dnsZoneCore.read(ctx, created.id, created.outs), "zone read").toEqual({
    id: created.id,
    outs: created.outs,
    inputs: { name, adopt: false },
  });
  expect(
    (await listZones(ctx.client, name)).map((z) => z.id),
    "zone lookup by name",
  ).toEqual([created.id]);
  await dnsZoneCore.delete(ctx, created.id, created.outs);
  expect(await dnsZoneCore.read(ctx, created.id, created.outs), "zone read after delete").toEqual({});
  await dnsZoneCore.delete(ctx, created.id, created.outs);
}

/** How each shape names a transcript: the emulator's own ids, or numbers (§9.2). */
const transcriptIds: Record<string, RegExp> = { envelope: /^tr_/, flat: /^\d+$/, "by-name": /^tr_/ };

describe("the examples against each shape the emulator plays", () => {
  // The zone's life goes through the provider's own client, whose keep-alive pools outlive the test.
  afterAll(closePools);

  it.concurrent.for(shapes)("%s: a credential's life, a zone's", (shape) =>
    withExampleStack(
      "credential-lifecycle",
      { launch: () => startEmulator({ logger: silentLogger, shape }) },
      async ({ emulator, stack }) => {
        expect(emulator.shape).toBe(shape);
        const secrets: string[] = [emulator.apiKey, emulator.token];

        // Up, then a second up and a preview and a refresh that change nothing.
        const up = await stack.up();
        expect(up.changes, "up").toMatchObject({ create: 3 });
        expect(await roundTrip(accessFrom(up)), "S3 with the new credential").toBe("ok");
        secrets.push(output(up, "secretAccessKey"));
        expect(changesOtherThanSame(await stack.up()), "second up").toEqual({});
        await expectAtRest(stack);

        // Deactivate in place: same access key id, S3 refuses it.
        const off = await stack.up(lifecycle({ active: "false" }));
        expect(opsOf(off, "uploader"), "deactivate").toEqual(["update"]);
        expect(output(off, "accessKeyId")).toBe(output(up, "accessKeyId"));
        expect(await roundTrip(accessFrom(off)), "S3 with the deactivated credential").toBe("InvalidAccessKeyId");

        // Activate and rotate: same access key id, a new secret that works, the old one refused.
        const rotated = await stack.up(lifecycle({ active: "true", rotation: "2" }));
        expect(output(rotated, "accessKeyId"), "rotation keeps the access key id").toBe(output(up, "accessKeyId"));
        expect(output(rotated, "secretAccessKey")).not.toBe(output(up, "secretAccessKey"));
        secrets.push(output(rotated, "secretAccessKey"));
        expect(await roundTrip(accessFrom(rotated)), "S3 with the rotated secret").toBe("ok");
        expect(await roundTrip(accessFrom(up)), "S3 with the old secret").toBe("SignatureDoesNotMatch");

        // Drift made outside, through the management API in this shape: seen on refresh, undone by up.
        const { bucketId, accessKeyId } = credentialIn(await stack.exportState());
        const deactivate = `/object-storage/buckets/${bucketId}/credentials/${accessKeyId}/deactivate`;
        const outside = await management(emulator, "POST", deactivate);
        expect(outside.ok, `POST ${deactivate} answered ${outside.status}`).toBe(true);
        expect(changesOtherThanSame(await stack.refresh()), "refresh after drift").toMatchObject({ update: 1 });
        const refreshed = await stack.exportState();
        expect(credentialIn(refreshed).active, "state after refresh").toBe(false);
        expectNoSecret(refreshed, secrets);
        // The fix previewed is the one made: only `active` changes, no accessKeyId removed (issue 37).
        const planned = await stack.preview();
        expect(planned.stdout, "preview after drift").toContain("[diff: ~active]");
        expect(planned.stdout, "preview after drift").not.toContain("accessKeyId");
        const fixed = await stack.up();
        expect(opsOf(fixed, "uploader"), "up after drift").toEqual(["update"]);
        expect(await roundTrip(accessFrom(fixed)), "S3 after up").toBe("ok");

        await zoneThroughTheCore(emulator, `${shape}.example.com`);

        // Destroy leaves the emulator empty.
        await expectDestroyedClean(stack, emulator);
      },
    ),
  );
});

describe("a transcript against each shape the emulator plays", needs(...transcriptTools), () => {
  let mediaDir: string;
  let receiver: LoopbackReceiver;

  beforeAll(async () => {
    mediaDir = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-e2e-shapes-media-"));
    await speak(path.join(mediaDir, "talk.wav"), "hello from another platform");
    receiver = await LoopbackReceiver.start(mediaDir);
  });
  afterAll(async () => {
    await receiver?.close();
    if (mediaDir) await rm(mediaDir, { recursive: true, force: true });
  });

  it.concurrent.for(shapes)("%s: a recording served from loopback", (shape) =>
    withExampleStack(
      "transcript",
      { launch: () => startEmulator({ logger: silentLogger, shape, allowLoopbackUrls: true, syncWaitMs: 0 }) },
      async ({ emulator, stack: talk }) => {
        const transcript = await talk.up(transcriptConfig({ audioUrl: receiver.mediaUrl("talk.wav"), language: "en" }));
        expect(output(transcript, "status"), "transcript").toBe("done");
        expect(output(transcript, "text").trim()).not.toBe("");
        expect(output(transcript, "transcriptId")).toMatch(transcriptIds[shape]!);
        expect(changesOtherThanSame(await talk.refresh()), "transcript refresh").toEqual({});
        expectNoSecret(await talk.exportState(), [emulator.apiKey, emulator.token]);
        await talk.destroy();
      },
    ),
  );
});
