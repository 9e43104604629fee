// Bad input fails at preview, names the resource and the property, and never reaches the API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, providerConfig, type Emulator } from "./support/emulator.js";
import { emulatorStats } from "../support/platform.mts";
import { ExampleStack, type Config } from "./support/runner.js";

describe("validation at preview", () => {
  let emulator: Emulator;
  let quickstart: ExampleStack;
  let dns: ExampleStack;
  let transcript: ExampleStack;

  beforeAll(async () => {
    emulator = await launchEmulator();
    quickstart = await ExampleStack.create("quickstart", providerConfig(emulator));
    dns = await ExampleStack.create("dns", providerConfig(emulator));
    transcript = await ExampleStack.create("transcript", providerConfig(emulator));
  });
  afterAll(async () => {
    await quickstart?.dispose();
    await dns?.dispose();
    await transcript?.dispose();
    await emulator?.close();
  });

  const cases: Array<{
    what: string;
    stack: () => ExampleStack;
    config: Config;
    resource: string;
    property: string;
    hint: string;
  }> = [
    {
      what: "an invalid bucket name",
      stack: () => quickstart,
      config: { "cloudplatform-quickstart:bucketName": { value: "Bad_Bucket..Name" } },
      resource: "media",
      property: "name",
      hint: "naming rules",
    },
    {
      what: "an unknown storage class",
      stack: () => quickstart,
      config: { "cloudplatform-quickstart:storageClass": { value: "Glacier" } },
      resource: "media",
      property: "storageClass",
      hint: "Glacier",
    },
    {
      what: "a malformed domain",
      stack: () => dns,
      config: { "cloudplatform-dns:zoneName": { value: "not a domain..com" } },
      resource: "main",
      property: "name",
      hint: "label",
    },
    {
      what: "an empty bucket name (which would otherwise pass as no name)",
      stack: () => quickstart,
      config: { "cloudplatform-quickstart:bucketName": { value: "" } },
      resource: "media",
      property: "name",
      hint: "must not be empty",
    },
    {
      what: "a transcript source file that does not exist, naming source rather than a {<nil>} value",
      stack: () => transcript,
      config: { "cloudplatform-transcript:audioFile": { value: "media/missing.wav" } },
      resource: "talk",
      property: "source",
      hint: "does not exist",
    },
  ];

  for (const c of cases) {
    it(`rejects ${c.what} at preview without any write`, async () => {
      const before = await emulatorStats(emulator);
      const preview = await c.stack().previewFailing(c.config);
      expect(preview.ok).toBe(false);
      const message = preview.error ?? "";
      expect(message).toMatch(new RegExp(`['"]${c.resource}['"]`));
      expect(message).toContain(c.property);
      expect(message).toContain(c.hint);
      expect(message).not.toContain(emulator.apiKey);
      expect(message).not.toContain("<nil>");
      const after = await emulatorStats(emulator);
      expect(after.writes).toBe(before.writes);
    });
  }
});
