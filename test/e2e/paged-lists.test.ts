// Lists on several pages (docs/api-contract.md §2.3, §9.3): the real engine against emulators that
// answer two items a page, each shape paging its own way: canonical with a Link header, envelope
// with a page number and count, by-name with a token (flat pages as canonical does). Every list of examples/soak spans two pages: three buckets, three credentials each, three
// zones. A refresh that read only the first page would take the objects on the second for gone.
import { afterAll, describe, expect, it } from "vitest";
import { silentLogger, startEmulator, type ShapeName } from "../../emulator/src/index.js";
import { listCredentials } from "../../provider/platform/bucket-credential/api.js";
import { listBuckets } from "../../provider/platform/bucket/api.js";
import { listZones } from "../../provider/platform/dns-zone/api.js";
import { closePools } from "../../provider/client.js";
import { hostFor, management, providerConfig } from "../support/emulator.js";
import { withExampleStack } from "../support/hooks.js";
import { emulatorState } from "../support/platform.mts";
import { expectAtRest, expectDestroyedClean } from "./support/lifecycle.js";
import { changesOtherThanSame, type Config } from "../support/runner.js";

const shapes: readonly ShapeName[] = ["canonical", "envelope", "by-name"];

const soak = (prefix: string): Config => ({
  "cloudplatform-soak:buckets": { value: "3" },
  "cloudplatform-soak:credentialsPerBucket": { value: "3" },
  "cloudplatform-soak:zones": { value: "3" },
  "cloudplatform-soak:namePrefix": { value: prefix },
});

interface ExportedResource {
  readonly urn: string;
  readonly outputs?: Record<string, unknown>;
}

/** The outputs of the credentials of the bucket `bucket-00`, from a `pulumi stack export`. */
function firstBucketCredentials(exported: string): Array<{ bucketId: string; accessKeyId: string }> {
  const state = JSON.parse(exported) as { deployment: { resources?: ExportedResource[] } };
  return (state.deployment.resources ?? [])
    .filter((r) => /::bucket-00-cred-\d$/.test(r.urn))
    .map((r) => ({ bucketId: String(r.outputs?.["bucketId"]), accessKeyId: String(r.outputs?.["accessKeyId"]) }));
}

describe("lists on several pages, with the real engine", () => {
  afterAll(async () => {
    await closePools();
  });

  it.concurrent.for(shapes)("%s", (shape) =>
    withExampleStack(
      "soak",
      {
        launch: () => startEmulator({ logger: silentLogger, shape, pageSize: 2 }),
        config: (emulator) => ({ ...providerConfig(emulator), ...soak(`paged-${shape}`) }),
      },
      async ({ emulator, stack }) => {
        const up = await stack.up();
        expect(up.changes, "up").toMatchObject({ create: 16 });
        expect(await emulatorState(emulator)).toMatchObject({ buckets: 3, credentials: 9, zones: 3 });
        expect(changesOtherThanSame(await stack.up()), "second up").toEqual({});
        await expectAtRest(stack);

        // The lookups see every object, through the API as a program's lookup functions call it.
        const client = hostFor(emulator).context("Bucket", "lookup").client;
        const buckets = await listBuckets(client);
        expect(buckets, "buckets").toHaveLength(3);
        expect(await listZones(client), "zones").toHaveLength(3);
        for (const bucket of buckets) expect(await listCredentials(client, bucket.id), bucket.name).toHaveLength(3);

        // Drift on every credential of one bucket, wherever its list puts them: each is read, none gone.
        const credentials = firstBucketCredentials(await stack.exportState());
        expect(credentials).toHaveLength(3);
        for (const { bucketId, accessKeyId } of credentials) {
          const path = `/object-storage/buckets/${bucketId}/credentials/${accessKeyId}/deactivate`;
          const outside = await management(emulator, "POST", path);
          expect(outside.ok, `POST ${path} answered ${outside.status}`).toBe(true);
        }
        expect(changesOtherThanSame(await stack.refresh()), "refresh after drift").toEqual({ update: 3 });
        const fixed = await stack.up();
        expect(changesOtherThanSame(fixed), "up after drift").toEqual({ update: 3 });

        await expectDestroyedClean(stack, emulator);
      },
    ),
  );
});
