// cloudplatform-recover's plan: from a stack's pending creates to the objects it deletes, and what
// it leaves to the user because those objects could be someone else's.
import { describe, expect, it } from "vitest";
import { plan, readStack, type PlatformView } from "../../provider/recover/plan.js";
import type { Credential } from "../../provider/platform/bucket-credential/parse.js";
import type { Bucket } from "../../provider/platform/bucket/parse.js";
import type { Zone } from "../../provider/platform/dns-zone/parse.js";

const dyn = (t: string) => `pulumi-nodejs:dynamic/cloudplatform:${t}`;
const urn = (t: string, name: string) => `urn:pulumi:dev::proj::${dyn(t)}::${name}`;
const started = "2026-11-23T10:00:00Z";
const during = "2026-11-23T10:05:00Z";
const before = "2026-11-01T00:00:00Z";

/** A stack killed mid-`up`: what `pulumi stack export` shows of it. */
function exported(pending: object[], resources: object[] = []): unknown {
  return {
    version: 3,
    deployment: {
      manifest: { time: during },
      resources: [
        { urn: "urn:pulumi:dev::proj::pulumi:pulumi:Stack::proj-dev", type: "pulumi:pulumi:Stack", created: started },
        ...resources,
      ],
      pending_operations: pending.map((resource) => ({ type: "creating", resource })),
    },
  };
}

function platform(
  buckets: Bucket[] = [],
  zones: Zone[] = [],
  credentials: Record<string, Credential[]> = {},
): PlatformView {
  return {
    bucketNamed: async (name) => buckets.find((b) => b.name === name),
    zoneNamed: async (name) => zones.find((z) => z.name === name),
    credentialsOf: async (bucketId) => credentials[bucketId] ?? [],
  };
}

const bucket = (id: string, name: string, created_at?: string): Bucket => ({
  id,
  name,
  storage_class: "Standard",
  created_at,
});
const cred = (access_key_id: string, created_at = during): Credential => ({
  access_key_id,
  active: true,
  bucket_id: undefined,
  created_at,
});

describe("cloudplatform-recover's plan", () => {
  it("reads the pending creates and what the state holds, both hosts' type tokens", () => {
    const view = readStack(
      exported(
        [
          { urn: urn("Bucket", "media"), type: dyn("Bucket"), inputs: { name: "media-abcdefg" } },
          {
            urn: "urn:pulumi:dev::proj::cloudplatform:index:DnsZone::z",
            type: "cloudplatform:index:DnsZone",
            inputs: { name: "a.com" },
          },
          { urn: urn("BucketCredential", "w"), type: dyn("BucketCredential"), inputs: { bucketId: "bkt_1" } },
          { urn: "urn:pulumi:dev::proj::random:index:RandomId::r", type: "random:index:RandomId", inputs: {} },
        ],
        [
          { type: dyn("Bucket"), id: "bkt_1", outputs: { adopted: false } },
          { type: dyn("Bucket"), id: "bkt_2", outputs: { adopted: true } },
          { type: dyn("BucketCredential"), id: "AK1", outputs: {} },
        ],
      ),
    );
    expect(view.pending).toEqual([
      { kind: "Bucket", name: "media", objectName: "media-abcdefg" },
      { kind: "DnsZone", name: "z", objectName: "a.com" },
      { kind: "BucketCredential", name: "w", bucketId: "bkt_1", credentials: 1 },
    ]);
    expect([...view.ownBuckets]).toEqual(["bkt_1"]);
    expect([...view.heldBuckets]).toEqual(["bkt_1", "bkt_2"]);
    expect([...view.heldCredentials]).toEqual(["AK1"]);
    expect(view.since).toBe(Date.parse(started));
    // A stack that finished a deployment since: the interrupted one started after that one ended.
    expect(readStack(exported([]), Date.parse(during)).since).toBe(Date.parse(during));
  });

  it("deletes what the interrupted creates made that the stack does not hold", async () => {
    const view = readStack(
      exported(
        [
          { urn: urn("Bucket", "media"), type: dyn("Bucket"), inputs: { name: "media-abcdefg" } },
          { urn: urn("DnsZone", "site"), type: dyn("DnsZone"), inputs: { name: "example.com" } },
          { urn: urn("BucketCredential", "w1"), type: dyn("BucketCredential"), inputs: { bucketId: "bkt_1" } },
          { urn: urn("BucketCredential", "w2"), type: dyn("BucketCredential"), inputs: { bucketId: "bkt_1" } },
          { urn: urn("BucketCredential", "m"), type: dyn("BucketCredential"), inputs: { bucketId: "bkt_9" } },
        ],
        [
          { type: dyn("Bucket"), id: "bkt_1", outputs: { adopted: false } },
          { type: dyn("BucketCredential"), id: "AK0", outputs: {} },
        ],
      ),
    );
    const result = await plan(
      view,
      platform(
        [bucket("bkt_9", "media-abcdefg", during)],
        [{ id: "zone_1", name: "example.com", status: undefined, nameservers: [], created_at: during }],
        {
          bkt_1: [cred("AK0", before), cred("AK1"), cred("AK2")],
          bkt_9: [cred("AK9")],
        },
      ),
    );
    expect(result.deletions).toEqual([
      { kind: "bucket", id: "bkt_9", name: "media-abcdefg", resource: 'Bucket "media"' },
      { kind: "zone", id: "zone_1", name: "example.com", resource: 'DnsZone "site"' },
      {
        kind: "credential",
        bucketId: "bkt_1",
        accessKeyId: "AK1",
        resource: 'BucketCredential "w1", BucketCredential "w2"',
      },
      {
        kind: "credential",
        bucketId: "bkt_1",
        accessKeyId: "AK2",
        resource: 'BucketCredential "w1", BucketCredential "w2"',
      },
    ]);
    // bkt_9's credential goes with the bucket.
    expect(result.decisions).toEqual([]);
  });

  it("never deletes a named object older than the interrupted deployment: it may be someone else's", async () => {
    const view = readStack(
      exported([
        { urn: urn("Bucket", "logs"), type: dyn("Bucket"), inputs: { name: "company-logs" } },
        { urn: urn("DnsZone", "site"), type: dyn("DnsZone"), inputs: { name: "example.com" } },
      ]),
    );
    const result = await plan(
      view,
      platform(
        [bucket("bkt_1", "company-logs", before)],
        [{ id: "zone_1", name: "example.com", status: undefined, nameservers: [], created_at: before }],
      ),
    );
    expect(result.deletions).toEqual([]);
    expect(result.decisions).toHaveLength(2);
    expect(result.decisions[0]).toContain("set adopt: true");
  });

  it("deletes an auto-named bucket of unknown age: its random name is no one else's", async () => {
    const view = readStack(
      exported([{ urn: urn("Bucket", "media"), type: dyn("Bucket"), inputs: { name: "media-abcdefg" } }]),
    );
    const named = readStack(
      exported([{ urn: urn("Bucket", "media"), type: dyn("Bucket"), inputs: { name: "media" } }]),
    );
    expect((await plan(view, platform([bucket("bkt_1", "media-abcdefg")]))).deletions).toHaveLength(1);
    expect((await plan(named, platform([bucket("bkt_1", "media")]))).deletions).toHaveLength(0);
  });

  it("asks the user about credentials it cannot tell apart, and follows --delete", async () => {
    const pending = [
      { urn: urn("BucketCredential", "w"), type: dyn("BucketCredential"), inputs: { bucketId: "bkt_1" } },
    ];
    const own = [{ type: dyn("Bucket"), id: "bkt_1", outputs: { adopted: false } }];
    const adopted = [{ type: dyn("Bucket"), id: "bkt_1", outputs: { adopted: true } }];
    const two = platform([], [], { bkt_1: [cred("AK1"), cred("AK2")] });
    // More than were in flight: someone else creates credentials there too.
    const many = await plan(readStack(exported(pending, own)), two);
    expect(many.deletions).toEqual([]);
    expect(many.decisions[0]).toContain("--delete bkt_1/AK1,bkt_1/AK2");
    // An adopted bucket's credentials are not the stack's to clean up.
    const notOwn = await plan(readStack(exported(pending, adopted)), platform([], [], { bkt_1: [cred("AK1")] }));
    expect(notOwn.decisions[0]).toContain("the stack did not create that bucket");
    // The user's answer.
    const answered = await plan(readStack(exported(pending, own)), two, [{ bucketId: "bkt_1", accessKeyId: "AK2" }]);
    expect(answered.deletions).toEqual([
      { kind: "credential", bucketId: "bkt_1", accessKeyId: "AK2", resource: "--delete" },
    ]);
    expect(answered.decisions).toEqual([]);
  });

  it("counts two credentials for a RotatingBucketCredential's create, and never deletes one it holds", async () => {
    const rotating = (name: string, inputs: object) => ({
      urn: urn("RotatingBucketCredential", name),
      type: dyn("RotatingBucketCredential"),
      inputs: { bucketId: "bkt_1", ...inputs },
    });
    const resources = [
      { type: dyn("Bucket"), id: "bkt_1", outputs: { adopted: false } },
      {
        type: "cloudplatform:index:RotatingBucketCredential",
        id: "0b1d",
        outputs: { accessKeyId: "AKA", previousAccessKeyId: "AKB" },
      },
    ];
    const view = readStack(exported([rotating("app", {}), rotating("old", { takeOver: ["AKX"] })], resources));
    expect(view.pending.map((p) => p.credentials)).toEqual([2, 1]);
    expect([...view.heldCredentials]).toEqual(["AKA", "AKB"]);
    const onBucket = [cred("AKA"), cred("AKB"), cred("AK1"), cred("AK2"), cred("AK3")];
    // Three made by the two interrupted creates (two and one), none held: all three go, nothing the stack holds.
    const result = await plan(view, platform([], [], { bkt_1: onBucket }));
    expect(result.deletions.map((d) => (d.kind === "credential" ? d.accessKeyId : d.id))).toEqual([
      "AK1",
      "AK2",
      "AK3",
    ]);
    expect(result.deletions[0]?.resource).toBe('RotatingBucketCredential "app", RotatingBucketCredential "old"');
    // One more than they could have made: the user decides.
    const extra = await plan(view, platform([], [], { bkt_1: [...onBucket, cred("AK4")] }));
    expect(extra.deletions).toEqual([]);
    expect(extra.decisions[0]).not.toContain("AKA");
  });

  it("never deletes a credential the stack holds, even when named", async () => {
    const view = readStack(exported([], [{ type: dyn("BucketCredential"), id: "AK1", outputs: {} }]));
    const result = await plan(view, platform(), [{ bucketId: "bkt_1", accessKeyId: "AK1" }]);
    expect(result.deletions).toEqual([]);
    expect(result.decisions[0]).toContain("the stack holds that credential");
  });

  it("says a transcript's job cannot be found, without failing", async () => {
    const view = readStack(exported([{ urn: urn("Transcript", "talk"), type: dyn("Transcript"), inputs: {} }]));
    const result = await plan(view, platform());
    expect(result).toMatchObject({ deletions: [], decisions: [] });
    expect(result.notes[0]).toContain("cannot be found");
  });
});
