// docs/state-backend.md's section 3 with the real Pulumi CLI against the emulator: two `up`s of one
// stack, from two working copies (two folders, two PULUMI_HOMEs) logged in to the platform's S3,
// started at the same moment round after round; never do both run, a refused one says the stack is
// locked, a retry runs, and the state stays whole with no secret in clear. The rest of the doc:
// state-backend.test.ts. Whether both ran is read from the platform, not from the clock: each round
// changes the bucket's storage class (a replacement), so an `up` that ran creates one bucket, and one
// that came after it, with the lock and then the state it left, has nothing to do; two that ran at
// once would each create one. So a busy machine moves when the `up`s run, never what this counts.
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, management, providerConfig, type Emulator } from "../support/emulator.js";
import { Platform } from "../support/platform.mts";
import { changesOtherThanSame, ExampleStack, output } from "../support/runner.js";
import { pulumiBinDir } from "./support/plugin-cli.js";
import {
  BUCKET,
  docBlocks,
  expectNoSecretInBucket,
  pulumiCli,
  stateEnv,
  warnings,
  type Deployment,
  type KeyPair,
} from "./support/state-backend.js";

let emulator: Emulator;
let scratch: string;
let binDir: string;

beforeAll(async () => {
  emulator = await launchEmulator();
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-state-backend-race-"));
  binDir = await pulumiBinDir();
});
afterAll(async () => {
  await emulator?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

async function created(response: Response): Promise<Record<string, string>> {
  if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`);
  return (await response.json()) as Record<string, string>;
}

describe("two `up`s at once on Pulumi's S3 state backend on a bucket of the platform (docs/state-backend.md)", () => {
  let pair: KeyPair;
  const copies: ExampleStack[] = [];
  /** Every S3 secret the stacks' credentials had, to look for in the bucket. */
  const secrets = new Set<string>();
  const project = "cloudplatform-quickstart";
  const stateKey = `.pulumi/stacks/${project}/e2e.json`;
  /** The storage class the stack's bucket has now: every update below changes it (a replacement). */
  let storageClass = "Standard";

  // The state bucket and its credential by hand (the doc's management API recipe; state-backend.test.ts
  // runs the doc's program for them), then one stack from two working copies logged in with the
  // doc's address, as state-backend.test.ts has it when its race would start.
  beforeAll(async () => {
    const bucket = await created(
      await management(emulator, "POST", "/object-storage/buckets", { name: BUCKET, storage_class: "Standard" }),
    );
    const made = await created(
      await management(emulator, "POST", `/object-storage/buckets/${bucket["id"]}/credentials`),
    );
    pair = { accessKeyId: made["access_key_id"]!, secretAccessKey: made["secret_access_key"]! };
    secrets.add(pair.secretAccessKey);
    const documented = /pulumi login '([^']+)'/.exec(docBlocks("2. Log in, then work as usual")[0]!.text)![1]!;
    const httpUrl = `${documented
      .replace("acme-pulumi-state", BUCKET)
      .replace("s3.example-platform.com", new URL(emulator.s3Url).host)}&disableSSL=true`;
    const pulumi = pulumiCli(binDir, scratch);
    const env = stateEnv(pair);
    for (let i = 0; i < 2; i++) {
      const copy = await ExampleStack.create("quickstart", providerConfig(emulator));
      copies.push(copy);
      await pulumi(copy.workDir, copy.homeDir, env, ["login", httpUrl]);
      copy.useLoggedInBackend(env);
    }
    const [a, b] = copies as [ExampleStack, ExampleStack];
    await pulumi(a.workDir, a.homeDir, env, ["stack", "init", "e2e"]);
    const first = await a.up();
    expect(first.changes).toMatchObject({ create: 3 });
    secrets.add(output(first, "secretAccessKey"));
    await copyFile(path.join(a.workDir, "Pulumi.e2e.yaml"), path.join(b.workDir, "Pulumi.e2e.yaml"));
    await pulumi(b.workDir, b.homeDir, env, ["stack", "select", "e2e"]);
  });
  afterAll(async () => {
    for (const copy of copies) await copy.dispose();
  });

  it("runs never both of two `up`s started at the same moment; a refused one says the stack is locked, a retry runs", async () => {
    const [a, b] = copies as [ExampleStack, ExampleStack];
    const lockMessage = docBlocks("3. Two `up`s at once: the lock")[0]!
      .text.split("\n")[0]!
      .replace(/^error: /, "");
    // Each management call takes 2 s, so that an `up` holds the lock for 8 s or more: the two start
    // well within that of each other, as two people or two CI jobs pressing enter at once.
    const platform = new Platform(emulator);
    await platform.setFaults({ latencyMs: 2000, routes: "/object-storage/" });
    /** Buckets created on the platform so far: each `up` that runs below creates one (a replacement). */
    const bucketsCreated = async () => (await platform.stats()).requests["POST /object-storage/buckets"] ?? 0;
    const tally = { oneWon: 0, bothRefused: 0, apart: 0 };
    try {
      for (let round = 0; tally.oneWon + tally.bothRefused < 4; round++) {
        expect(round, "rounds whose two ups did not run together").toBeLessThan(8);
        storageClass = storageClass === "Standard" ? "InfrequentAccess" : "Standard";
        const config = { "cloudplatform-quickstart:storageClass": { value: storageClass } };
        const before = await bucketsCreated();
        const results = await Promise.all([a.upFailing(config), b.upFailing(config)]);
        const [ra, rb] = results;
        const created = (await bucketsCreated()) - before;
        // An `up` that failed was refused at the lock, before any write (its error says so first).
        for (const refused of results.filter((r) => !r.ok)) {
          expect(refused.error).toContain(lockMessage);
          expect(refused.error).toMatch(
            new RegExp(
              `s3://${BUCKET}/\\.pulumi/locks/organization/${project}/e2e/[0-9a-f-]{36}\\.json\\?\\S*: created by \\S+ \\(pid \\d+\\) at `,
            ),
          );
          expect(warnings(refused.error)).toEqual([]);
        }
        // One bucket when either ran, none when both were refused: two would mean both held the lock.
        expect(created, `round ${round}: buckets created by the two ups`).toBe(ra.ok || rb.ok ? 1 : 0);
        if (ra.ok && rb.ok) {
          // Both went through, one after the other (the one creation above): this round did not
          // race, and is run again.
          tally.apart++;
          secrets.add(output(rb, "secretAccessKey"));
          continue;
        }
        const winner = results.find((r) => r.ok);
        if (winner) {
          tally.oneWon++;
          secrets.add(output(winner, "secretAccessKey"));
          expect(warnings(winner.stderr)).toEqual([]);
        } else tally.bothRefused++;
        // The refused one, run again, goes through (with nothing left to do when the other won).
        const retry = await (ra.ok ? b : a).up(config);
        secrets.add(output(retry, "secretAccessKey"));
        if (winner) expect(changesOtherThanSame(retry)).toEqual({});
        expect(warnings(retry.stderr)).toEqual([]);
      }
    } finally {
      await platform.setFaults({});
    }
    console.info(
      `two ups at once: one ran ${tally.oneWon}, both refused ${tally.bothRefused}, ran apart (not counted) ${tally.apart}`,
    );

    // The state is whole: it parses, holds every resource, none pending, and matches the platform.
    const exported = JSON.parse(await a.exportState()) as Deployment;
    const types = exported.deployment.resources.map((r) => r.type);
    expect(types).toEqual(expect.arrayContaining(["pulumi:pulumi:Stack", "pulumi:providers:pulumi-nodejs"]));
    expect(types.filter((t) => t.endsWith(":Bucket"))).toHaveLength(1);
    expect(types.filter((t) => t.endsWith(":BucketCredential"))).toHaveLength(1);
    expect(exported.deployment.pending_operations ?? []).toEqual([]);
    const bucket = exported.deployment.resources.find((r) => r.type.endsWith(":Bucket"))!;
    expect(bucket.outputs?.["storageClass"]).toBe(storageClass);
    const inventory = await new Platform(emulator).objects();
    expect(inventory.buckets.map((x) => x.name).sort()).toEqual([BUCKET, bucket.outputs?.["name"]].sort());
    // `pulumi preview --expect-no-changes`, from either working copy.
    for (const copy of [a, b]) {
      const preview = await copy.preview({ "cloudplatform-quickstart:storageClass": { value: storageClass } });
      expect(changesOtherThanSame(preview)).toEqual({});
      expect(warnings(preview.stderr)).toEqual([]);
    }
  });

  it("keeps no secret in clear in the bucket after the race: not the API key, the token, nor any S3 secret", async () => {
    await expectNoSecretInBucket(emulator, pair, stateKey, secrets);
  });
});
