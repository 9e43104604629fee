// cloudplatform-import against every answer shape the provider reads (canonical, envelope, flat,
// by-name), on lists of two items a page: the command run in this process, the same names, every
// object and each credential's state whatever the shape. Nothing packed, no engine: the other
// cloudplatform-import*.test.ts files run the command as a user runs it.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, startEmulator, type ShapeName } from "../../emulator/src/index.js";
import { main as importCommand } from "../../provider/import/main.js";
import { closePools } from "../../provider/client.js";
import { createCredential, setCredentialActive } from "../../provider/platform/bucket-credential/api.js";
import { createBucket } from "../../provider/platform/bucket/api.js";
import { createZone } from "../../provider/platform/dns-zone/api.js";
import { hostFor } from "../support/emulator.js";
import { importEntries } from "./support/import.js";

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-import-shapes-e2e-"));
});
afterAll(async () => {
  await closePools();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("every answer shape the provider reads, on lists of two items a page", () => {
  const shapes: readonly ShapeName[] = ["canonical", "envelope", "flat", "by-name"];
  const saved = { ...process.env };
  afterAll(() => {
    process.env = { ...saved };
  });

  it.for(shapes)("%s: the same names, every object, each credential's state", async (shape) => {
    const emulator = await startEmulator({ logger: silentLogger, shape, pageSize: 2 });
    const dir = await mkdtemp(path.join(scratch, `shape-${shape}-`));
    try {
      const client = hostFor(emulator).context("Bucket", "fixture").client;
      for (const name of ["example.com", "b.example", "c.example"]) await createZone(client, name);
      const ids: string[] = [];
      for (const [name, storageClass] of [
        ["media-logs", "Archive"],
        ["media.logs", "Standard"],
        ["3d-assets", "InfrequentAccess"],
      ] as const) {
        ids.push((await createBucket(client, name, storageClass)).value.id);
      }
      for (const [i, bucketId] of [ids[0], ids[0], ids[0], ids[2]].entries()) {
        const made = await createCredential(client, bucketId as string, "repeat");
        if (i === 1) await setCredentialActive(client, bucketId as string, made.value.access_key_id, false);
      }
      process.env["CLOUDPLATFORM_BASE_URL"] = emulator.baseUrl;
      process.env["CLOUDPLATFORM_API_KEY"] = emulator.apiKey;
      const lines: string[] = [];
      expect(
        await importCommand(
          ["--cwd", dir],
          (l) => lines.push(l),
          () => undefined,
        ),
      ).toBe(0);
      expect(lines).toContain(
        "cloudplatform-import: 3 zones, 3 buckets, 4 credentials to import (10 objects); 1 skipped: the project " +
          "API key (the platform cannot read it back, and creating an ApiKey resource generates a new key).",
      );
      const entries = await importEntries(dir);
      expect(entries.map((e) => `${e.type.replace("cloudplatform:index:", "")} ${e.name}`)).toEqual([
        "DnsZone bExampleZone",
        "DnsZone cExampleZone",
        "DnsZone exampleComZone",
        "Bucket bucket3dAssets",
        expect.stringMatching(/^BucketCredential bucket3dAssetsKey[A-Z0-9][a-z0-9]{3}$/),
        "Bucket mediaLogs",
        expect.stringMatching(/^BucketCredential mediaLogsKey/),
        expect.stringMatching(/^BucketCredential mediaLogsKey/),
        expect.stringMatching(/^BucketCredential mediaLogsKey/),
        "Bucket mediaLogs2",
      ]);
      const program = await readFile(path.join(dir, "cloudplatform-imported.ts"), "utf8");
      expect(program.match(/active: false/g)).toHaveLength(1);
      expect(program.match(/active: true/g)).toHaveLength(3);
      for (const c of ["Archive", "Standard", "InfrequentAccess"]) expect(program).toContain(`storageClass: "${c}"`);
    } finally {
      await emulator.close();
    }
  });
});
