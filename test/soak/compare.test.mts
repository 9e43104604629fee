// What the soak counts, on hand-made inventories and state exports.
import assert from "node:assert/strict";
import { describe, it } from "vitest";
import {
  bucketType,
  compare,
  conflictingObjects,
  credentialType,
  declaredBucketIndex,
  declaredCreates,
  holdingsFromExport,
  leftovers,
  zoneType,
  type Declaration,
  type Inventory,
} from "../support/compare.mts";

const d: Declaration = { buckets: 4, credentialsPerBucket: 2, zones: 2, namePrefix: "soak" };

/** The platform after a clean deployment of `d`: bucket-00 and -02 named, -01 and -03 auto-named. */
function clean(): Inventory {
  return {
    buckets: [
      { id: "b0", name: "soak-bucket-00", credentials: ["K0a", "K0b"] },
      { id: "b1", name: "bucket-01-abc1234", credentials: ["K1a", "K1b"] },
      { id: "b2", name: "soak-bucket-02", credentials: ["K2a", "K2b"] },
      { id: "b3", name: "bucket-03-zz9zz9z", credentials: ["K3a", "K3b"] },
    ],
    zones: [
      { id: "z0", name: "zone-00.soak.test" },
      { id: "z1", name: "zone-01.soak.test" },
    ],
  };
}

function exportOf(inventory: Inventory, pending: string[] = []): string {
  const resources = [
    { type: "pulumi:pulumi:Stack", urn: "urn:stack" },
    { type: "pulumi:providers:pulumi-nodejs", id: "p" },
    ...inventory.buckets.map((b) => ({ type: bucketType, id: b.id, outputs: { bucketId: b.id, name: b.name } })),
    ...inventory.buckets.flatMap((b) =>
      b.credentials.map((k) => ({ type: credentialType, id: k, outputs: { accessKeyId: k, bucketId: b.id } })),
    ),
    ...inventory.zones.map((z) => ({ type: zoneType, id: z.id, outputs: { zoneId: z.id, name: z.name } })),
  ];
  return JSON.stringify({
    version: 3,
    deployment: { resources, pending_operations: pending.map((type) => ({ type, resource: {} })) },
  });
}

describe("holdingsFromExport", () => {
  it("reads the ids of buckets, credentials and zones, and counts pending operations by type", () => {
    const held = holdingsFromExport(exportOf(clean(), ["creating", "creating", "updating"]));
    assert.deepEqual([...held.bucketIds], ["b0", "b1", "b2", "b3"]);
    assert.equal(held.credentialKeys.size, 8);
    assert.deepEqual([...held.zoneIds], ["z0", "z1"]);
    assert.equal(held.resources, 14);
    assert.deepEqual(held.pending, { creating: 2, updating: 1 });
  });

  it("reads a stack that never deployed anything", () => {
    const held = holdingsFromExport(JSON.stringify({ version: 3, deployment: { manifest: {} } }));
    assert.equal(held.resources, 0);
    assert.deepEqual(held.pending, {});
  });
});

describe("declaredBucketIndex", () => {
  it("finds named buckets at even indexes and auto-named ones at odd indexes", () => {
    assert.equal(declaredBucketIndex(d, "soak-bucket-02"), 2);
    assert.equal(declaredBucketIndex(d, "bucket-03-a1b2c3d"), 3);
  });

  it("refuses names the program cannot have made", () => {
    assert.equal(declaredBucketIndex(d, "bucket-02-a1b2c3d"), undefined, "bucket-02 is named, never auto-named");
    assert.equal(declaredBucketIndex(d, "soak-bucket-01"), undefined, "bucket-01 is auto-named");
    assert.equal(declaredBucketIndex(d, "soak-bucket-04"), undefined, "beyond the declared count");
    assert.equal(declaredBucketIndex(d, "bucket-01-abc"), undefined, "the suffix has 7 characters");
    assert.equal(declaredBucketIndex(d, "other-bucket-00"), undefined);
  });
});

describe("compare", () => {
  it("finds nothing wrong with a clean deployment", () => {
    const inventory = clean();
    const c = compare(d, inventory, holdingsFromExport(exportOf(inventory)));
    assert.deepEqual(c.duplicates, { buckets: 0, credentials: 0, zones: 0 });
    assert.deepEqual(c.orphans, { buckets: 0, credentials: 0, zones: 0 });
    assert.deepEqual(c.missing, { buckets: 0, credentials: 0, zones: 0 });
  });

  it("counts a credential the state does not hold as a duplicate and an orphan", () => {
    const held = holdingsFromExport(exportOf(clean()));
    const inventory = clean();
    const withExtra: Inventory = {
      ...inventory,
      buckets: inventory.buckets.map((b) => (b.id === "b1" ? { ...b, credentials: [...b.credentials, "K1x"] } : b)),
    };
    const c = compare(d, withExtra, held);
    assert.deepEqual(c.duplicates, { buckets: 0, credentials: 1, zones: 0 });
    assert.deepEqual(c.orphans, { buckets: 0, credentials: 1, zones: 0 });
    assert.deepEqual(c.orphanNames, ["K1x"]);
  });

  it("counts a second auto-named bucket for one resource, and its credentials, against that resource", () => {
    const held = holdingsFromExport(exportOf(clean()));
    const inventory = clean();
    const withSecond: Inventory = {
      ...inventory,
      buckets: [...inventory.buckets, { id: "b1x", name: "bucket-01-qqqqqqq", credentials: ["K1y"] }],
    };
    const c = compare(d, withSecond, held);
    assert.deepEqual(c.duplicates, { buckets: 1, credentials: 1, zones: 0 });
    assert.deepEqual(c.orphans, { buckets: 1, credentials: 1, zones: 0 });
    assert.deepEqual(c.orphanNames, ["bucket-01-qqqqqqq", "K1y"]);
  });

  it("counts a zone the state does not hold as an orphan, and what the state holds but the platform lacks as missing", () => {
    const inventory = clean();
    const held = holdingsFromExport(
      exportOf({
        buckets: inventory.buckets,
        zones: [
          { id: "z0", name: "zone-00.soak.test" },
          { id: "zgone", name: "x" },
        ],
      }),
    );
    const c = compare(d, inventory, held);
    assert.deepEqual(c.orphans, { buckets: 0, credentials: 0, zones: 1 });
    assert.deepEqual(c.missing, { buckets: 0, credentials: 0, zones: 1 });
    assert.deepEqual(c.orphanNames, ["zone-01.soak.test"]);
  });
});

describe("leftovers", () => {
  it("counts every object still on the platform", () => {
    assert.deepEqual(leftovers(clean()), { buckets: 4, credentials: 8, zones: 2 });
  });
});

describe("conflictingObjects", () => {
  it("names the declared zones and named buckets on the platform that the state does not hold", () => {
    const inventory = clean();
    const held = holdingsFromExport(
      exportOf({ buckets: inventory.buckets.filter((b) => b.id !== "b0" && b.id !== "b1"), zones: [] }),
    );
    const blocking = conflictingObjects(d, inventory, held);
    assert.deepEqual(
      blocking.zones.map((z) => z.name),
      ["zone-00.soak.test", "zone-01.soak.test"],
    );
    // bucket-01 is auto-named: a new create draws another name and never collides.
    assert.deepEqual(
      blocking.buckets.map((b) => b.logicalName),
      ["bucket-00"],
    );
  });
});

describe("declaredCreates", () => {
  it("is one create per declared resource", () => {
    assert.equal(declaredCreates({ buckets: 30, credentialsPerBucket: 2, zones: 8, namePrefix: "soak" }), 98);
  });
});
