// Bad input fails at preview, names the resource and the property, and never reaches the API.
import { describe, expect, it } from "vitest";
import { useEmulator, useExampleStack } from "../support/hooks.js";
import { emulatorStats } from "../support/platform.mts";
import { ExampleStack, type Config } from "../support/runner.js";

describe("validation at preview", () => {
  const shared = useEmulator();
  const quickstart = useExampleStack("quickstart", { on: shared });
  const dns = useExampleStack("dns", { on: shared });
  const transcript = useExampleStack("transcript", { on: shared });

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
      stack: () => quickstart.stack,
      config: { "cloudplatform-quickstart:bucketName": { value: "Bad_Bucket..Name" } },
      resource: "media",
      property: "name",
      hint: "naming rules",
    },
    {
      what: "an unknown storage class",
      stack: () => quickstart.stack,
      config: { "cloudplatform-quickstart:storageClass": { value: "Glacier" } },
      resource: "media",
      property: "storageClass",
      hint: "Glacier",
    },
    {
      what: "a malformed domain",
      stack: () => dns.stack,
      config: { "cloudplatform-dns:zoneName": { value: "not a domain..com" } },
      resource: "main",
      property: "name",
      hint: "label",
    },
    {
      what: "an empty bucket name (which would otherwise pass as no name)",
      stack: () => quickstart.stack,
      config: { "cloudplatform-quickstart:bucketName": { value: "" } },
      resource: "media",
      property: "name",
      hint: "must not be empty",
    },
    {
      what: "a transcript source file that does not exist, naming source rather than a {<nil>} value",
      stack: () => transcript.stack,
      config: { "cloudplatform-transcript:audioFile": { value: "media/missing.wav" } },
      resource: "talk",
      property: "source",
      hint: "does not exist",
    },
  ];

  for (const c of cases) {
    it(`rejects ${c.what} at preview without any write`, async () => {
      const before = await emulatorStats(shared.emulator);
      const preview = await c.stack().previewFailing(c.config);
      expect(preview.ok).toBe(false);
      const message = preview.error ?? "";
      expect(message).toMatch(new RegExp(`['"]${c.resource}['"]`));
      expect(message).toContain(c.property);
      expect(message).toContain(c.hint);
      expect(message).not.toContain(shared.emulator.apiKey);
      expect(message).not.toContain("<nil>");
      const after = await emulatorStats(shared.emulator);
      expect(after.writes).toBe(before.writes);
    });
  }
});
