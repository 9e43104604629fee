// cloudplatform-import: the names it gives (portable, unique, the same on every run, read from the
// platform's names), what it leaves out (what the stack manages, what a moved stack does not hold,
// the API key), the import file and the program file it writes, and the release of a moved stack.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { discover, type Inventory } from "../../provider/import/discover.js";
import { declaredIn, importBatches, importFile, importFileText, programFileText } from "../../provider/import/files.js";
import { main } from "../../provider/import/main.js";
import {
  bucketBase,
  camel,
  isPortableIdentifier,
  keySuffixes,
  NameAllocator,
  yamlReadsAsOtherType,
  zoneBase,
} from "../../provider/import/names.js";
import { counts, plan, summary, type CredentialItem, type Item } from "../../provider/import/plan.js";
import { releasePlan } from "../../provider/import/release.js";
import { emptyHoldings, readHoldings } from "../../provider/import/stack.js";
import type { Credential } from "../../provider/platform/bucket-credential/parse.js";
import type { Bucket } from "../../provider/platform/bucket/parse.js";
import type { Zone } from "../../provider/platform/dns-zone/parse.js";
import { apiKey, base, useApi } from "./support.js";

const bucket = (id: string, name: string, storage_class = "Standard"): Bucket => ({
  id,
  name,
  storage_class,
  created_at: undefined,
});
const zone = (id: string, name: string): Zone => ({
  id,
  name,
  status: "active",
  nameservers: ["ns1.test"],
  created_at: undefined,
});
/** `null`: the platform does not say whether it is active. */
const key = (access_key_id: string, active: boolean | null = true): Credential => ({
  access_key_id,
  active: active ?? undefined,
  bucket_id: undefined,
  created_at: undefined,
});

/** A project with the awkward names the issue lists: dots, dashes, leading digits, a reserved word, a clash. */
function project(): Inventory {
  return {
    zones: [zone("zone_1", "example.com"), zone("zone_2", "3com.example"), zone("zone_3", "media.logs")],
    buckets: [
      bucket("bkt_1", "media-logs", "Archive"),
      bucket("bkt_2", "media.logs", "InfrequentAccess"),
      bucket("bkt_3", "3d-assets"),
      bucket("bkt_4", "import"),
      bucket("bkt_5", "logs-x7k2p9q"),
    ],
    credentials: new Map([
      ["bkt_1", [key("CPAKAAAAAAAAAAAAL28M"), key("CPAKBBBBBBBBBBBB9QZ1", false)]],
      // Two ids that end alike: told apart by more of their end.
      ["bkt_2", [key("CPAKCCCCCCCCCCC1ABCD"), key("CPAKDDDDDDDDDDD2ABCD")]],
      ["bkt_3", []],
      ["bkt_4", [key("CPAKEEEEEEEEEEEEEEE1", null)]],
      ["bkt_5", []],
    ]),
  };
}

/** A seeded generator of whole numbers below n (mulberry32): the same draws on every run. */
function random(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const next = random(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = next(i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

const namesOf = (items: readonly Item[]) => items.map((i) => i.name);

describe("names", () => {
  it("are read from the platform's names, in camelCase", () => {
    expect(camel("media-logs")).toBe("mediaLogs");
    expect(camel("media.logs.v2")).toBe("mediaLogsV2");
    expect(camel("a--b..c")).toBe("aBC");
    expect(bucketBase("media-logs")).toBe("mediaLogs");
    expect(zoneBase("example.com")).toBe("exampleComZone");
  });

  it("that would start with a digit or be a reserved word get their kind in front", () => {
    expect(bucketBase("3d-assets")).toBe("bucket3dAssets");
    expect(bucketBase("import")).toBe("bucketImport");
    expect(bucketBase("string")).toBe("bucketString");
    expect(bucketBase("pulumi")).toBe("bucketPulumi");
    expect(zoneBase("3com.example")).toBe("zone3comExample");
  });

  it("of credentials end with as much of the access key id as tells them apart (at least 4)", () => {
    expect([...keySuffixes(["CPAKAAAAAAAAAAAAL28M", "CPAKBBBBBBBBBBBB9QZ1"]).values()]).toEqual(["L28m", "9qz1"]);
    expect([...keySuffixes(["CPAKCCCCCCCCCCC1ABCD", "CPAKDDDDDDDDDDD2ABCD"]).values()]).toEqual(["1abcd", "2abcd"]);
  });

  it("are unique: a clash (with another object or a name the stack holds) gets the next number", () => {
    const names = new NameAllocator(["mediaLogs"]);
    expect(names.take("mediaLogs")).toBe("mediaLogs2");
    expect(names.take("mediaLogs")).toBe("mediaLogs3");
    expect(names.take("MEDIALOGS")).toBe("MEDIALOGS4");
  });

  it("for the whole project: every one portable, none twice, each object named after its own name", () => {
    const p = plan(project(), { target: emptyHoldings });
    const names = namesOf(p.items);
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length);
    for (const name of names) expect(isPortableIdentifier(name), name).toBe(true);
    expect(names).toEqual([
      "zone3comExample",
      "exampleComZone",
      "mediaLogsZone",
      "bucket3dAssets",
      "bucketImport",
      "bucketImportKeyEee1",
      "logsX7k2p9q",
      "mediaLogs",
      "mediaLogsKeyL28m",
      "mediaLogsKey9qz1",
      "mediaLogs2",
      "mediaLogs2Key1abcd",
      "mediaLogs2Key2abcd",
    ]);
  });

  it("are the same on every run, whatever order the platform lists in", () => {
    const first = plan(project(), { target: emptyHoldings });
    for (const seed of [1, 2, 3, 4, 5]) {
      const p = project();
      const again = plan(
        {
          zones: shuffled(p.zones, seed),
          buckets: shuffled(p.buckets, seed + 7),
          credentials: new Map(
            shuffled(
              [...p.credentials].map(([k, v]) => [k, shuffled(v, seed)] as const),
              seed,
            ),
          ),
        },
        { target: emptyHoldings },
      );
      expect(importFileText(again.items)).toBe(importFileText(first.items));
      expect(programFileText(again, base, "dev")).toBe(programFileText(first, base, "dev"));
    }
  });

  it("of 600 random bucket names that differ only in their dots and dashes, and their credentials: all portable and unique", () => {
    const vocabulary = ["media", "logs", "3d", "raw", "v2", "a1", "x", "import", "data"];
    const next = random(42);
    const names = new Set<string>();
    while (names.size < 600) {
      let name = vocabulary[next(vocabulary.length)] as string;
      for (let i = 0, more = 1 + next(3); i < more; i++) name += `${next(2) === 0 ? "-" : "."}${vocabulary[next(9)]}`;
      names.add(name);
    }
    const buckets = [...names].map((n, i) => bucket(`bkt_${i}`, n));
    // Many of them read the same in camelCase (`media-logs`, `media.logs`): the names must still differ.
    expect(new Set(buckets.map((b) => bucketBase(b.name))).size).toBeLessThan(550);
    const credentials = new Map(buckets.map((b, i) => [b.id, [key(`CPAK${String(i).padStart(16, "0")}`)]]));
    const p = plan({ zones: [], buckets, credentials }, { target: emptyHoldings });
    const all = namesOf(p.items);
    expect(all).toHaveLength(1200);
    expect(new Set(all.map((n) => n.toLowerCase())).size).toBe(1200);
    for (const name of all) expect(isPortableIdentifier(name), name).toBe(true);
  });
});

describe("what is imported", () => {
  const exported = (resources: object[]) => ({ version: 3, deployment: { resources } });
  const urn = (type: string, name: string) => `urn:pulumi:dev::proj::${type}::${name}`;
  const stack = readHoldings(
    exported([
      { urn: urn("pulumi:pulumi:Stack", "proj-dev"), type: "pulumi:pulumi:Stack" },
      // Under the dynamic SDK's token and the plugin's, and a credential still known by its import id.
      { urn: urn("x", "mediaLogs"), type: "pulumi-nodejs:dynamic/cloudplatform:Bucket", id: "bkt_1", outputs: {} },
      { urn: urn("x", "site"), type: "cloudplatform:index:DnsZone", id: "zone_1", outputs: {} },
      {
        urn: urn("x", "writer"),
        type: "cloudplatform:index:BucketCredential",
        id: "bkt_1/CPAKAAAAAAAAAAAAL28M",
        outputs: { bucketId: "bkt_1" },
      },
      { urn: urn("x", "mediaLogsKey9qz1"), type: "random:index:RandomString", id: "x" },
    ]),
  );

  it("reads what a stack manages under either type token, and every name it uses", () => {
    expect([...stack.buckets]).toEqual(["bkt_1"]);
    expect([...stack.zones]).toEqual(["zone_1"]);
    expect([...stack.credentials]).toEqual(["CPAKAAAAAAAAAAAAL28M"]);
    expect(stack.names).toContain("mediaLogsKey9qz1");
    expect(stack.resources.map((r) => r.host)).toEqual(["dynamic", "plugin", "plugin"]);
  });

  it("leaves out what the stack manages, counts it, and takes none of its names", () => {
    const p = plan(project(), { target: stack });
    const ids = p.items.map((i) => i.id);
    expect(ids).not.toContain("bkt_1");
    expect(ids).not.toContain("zone_1");
    expect(ids).not.toContain("bkt_1/CPAKAAAAAAAAAAAAL28M");
    expect(p.managed).toEqual({ DnsZone: 1, Bucket: 1, BucketCredential: 1 });
    // The managed bucket's new credential is named after the bucket, clear of the stack's names.
    const other = p.items.find((i) => i.id === "bkt_1/CPAKBBBBBBBBBBBB9QZ1") as CredentialItem;
    expect(other.name).toBe("mediaLogsKey9qz12");
    expect(other.bucket).toBeUndefined();
    expect(counts(p.items)).toEqual({ DnsZone: 2, Bucket: 4, BucketCredential: 4 });
  });

  it("run again after everything was imported, finds nothing; three objects made since, exactly those", () => {
    const everything = plan(project(), { target: emptyHoldings });
    const held = readHoldings(
      exported(
        everything.items.map((i) => ({
          urn: urn(`cloudplatform:index:${i.kind}`, i.name),
          type: `cloudplatform:index:${i.kind}`,
          id: i.kind === "BucketCredential" ? i.accessKeyId : i.id,
          outputs: {},
        })),
      ),
    );
    expect(plan(project(), { target: held }).items).toEqual([]);
    const grown = project();
    const more: Inventory = {
      zones: [...grown.zones, zone("zone_9", "new.example")],
      buckets: [...grown.buckets, bucket("bkt_9", "new-bucket")],
      credentials: new Map([...grown.credentials, ["bkt_9", []], ["bkt_3", [key("CPAKNEWNEWNEWNEWNEW1")]]]),
    };
    const p = plan(more, { target: held });
    expect(p.items.map((i) => i.id)).toEqual(["zone_9", "bkt_3/CPAKNEWNEWNEWNEWNEW1", "bkt_9"]);
    expect(namesOf(p.items)).toEqual(["newExampleZone", "bucket3dAssetsKeyNew1", "newBucket"]);
  });

  it("never the API key: listed as skipped, with why and what to do", () => {
    const p = plan(project(), { target: emptyHoldings });
    expect(p.skipped).toHaveLength(1);
    expect(p.skipped[0]?.what).toBe("the project API key");
    expect(p.skipped[0]?.why).toContain("generates a new key");
    expect(p.skipped[0]?.todo).toContain("declare an ApiKey resource");
    const line = summary(p, "dev");
    expect(line).toBe(
      "cloudplatform-import: 3 zones, 5 buckets, 5 credentials to import (13 objects); 0 already managed by stack " +
        "dev left out; 1 skipped: the project API key (the platform cannot read it back, and creating an ApiKey " +
        "resource generates a new key).",
    );
  });

  it("moving: only what the old stack holds; its API key, transcripts and vanished objects skipped", () => {
    const old = readHoldings(
      exported([
        { urn: urn("x", "logs"), type: "pulumi-nodejs:dynamic/cloudplatform:Bucket", id: "bkt_1", outputs: {} },
        {
          urn: urn("x", "w"),
          type: "pulumi-nodejs:dynamic/cloudplatform:BucketCredential",
          id: "CPAKBBBBBBBBBBBB9QZ1",
          outputs: { bucketId: "bkt_1" },
        },
        { urn: urn("x", "key"), type: "pulumi-nodejs:dynamic/cloudplatform:ApiKey", id: "apikey", outputs: {} },
        { urn: urn("x", "talk"), type: "pulumi-nodejs:dynamic/cloudplatform:Transcript", id: "tr_1", outputs: {} },
        { urn: urn("x", "gone"), type: "pulumi-nodejs:dynamic/cloudplatform:DnsZone", id: "zone_9", outputs: {} },
      ]),
    );
    const p = plan(project(), { target: emptyHoldings, source: { name: "old", holdings: old } });
    expect(p.items.map((i) => i.id)).toEqual(["bkt_1", "bkt_1/CPAKBBBBBBBBBBBB9QZ1"]);
    expect(p.skipped.map((s) => s.what)).toEqual([
      'ApiKey "key" of stack old (the project API key)',
      'Transcript "talk" of stack old',
      'DnsZone "gone" of stack old',
    ]);
    expect(p.skipped[2]?.todo).toContain("pulumi refresh");
  });
});

describe("the import file", () => {
  const p = plan(project(), { target: emptyHoldings });

  it("lists each object by type token, name and import id: a credential as <bucketId>/<accessKeyId>", () => {
    const [first] = importBatches(p.items);
    const file = importFile(first ?? []);
    expect(file.resources[0]).toEqual({ type: "cloudplatform:index:DnsZone", name: "zone3comExample", id: "zone_2" });
    expect(file.resources).toContainEqual({
      type: "cloudplatform:index:BucketCredential",
      name: "mediaLogsKey9qz1",
      id: "bkt_1/CPAKBBBBBBBBBBBB9QZ1",
    });
    expect(file.resources).toContainEqual({ type: "cloudplatform:index:Bucket", name: "mediaLogs", id: "bkt_1" });
    for (const r of file.resources) expect(Object.keys(r)).toEqual(["type", "name", "id"]);
  });

  it("puts a zone named like an imported bucket in a second file, so that code generation keeps its references", () => {
    const batches = importBatches(p.items);
    expect(batches).toHaveLength(2);
    expect(namesOf(batches[1] ?? [])).toEqual(["mediaLogsZone"]);
    expect(namesOf(batches[0] ?? [])).not.toContain("mediaLogsZone");
    const plain = plan({ ...project(), zones: [zone("zone_1", "example.com")] }, { target: emptyHoldings });
    expect(importBatches(plain.items)).toHaveLength(1);
  });
});

describe("the program file (TypeScript, dynamic SDK)", () => {
  const p = plan(project(), { target: emptyHoldings });
  const text = programFileText(p, base, "dev");

  it("declares zones and buckets to adopt, with the platform's names and storage classes", () => {
    expect(text).toContain(
      'export const exampleComZone = new cloudplatform.DnsZone("exampleComZone", {\n  name: "example.com",\n  adopt: true,\n});',
    );
    expect(text).toContain(
      'export const mediaLogs2 = new cloudplatform.Bucket("mediaLogs2", {\n  name: "media.logs",\n' +
        '  storageClass: "InfrequentAccess",\n  adopt: true,\n});',
    );
  });

  it("takes credentials over by access key id, referring to their bucket's output, stating whether they are active", () => {
    expect(text).toContain(
      'export const mediaLogsKey9qz1 = new cloudplatform.BucketCredential("mediaLogsKey9qz1", {\n' +
        '  bucketId: mediaLogs.bucketId,\n  accessKeyId: "CPAKBBBBBBBBBBBB9QZ1",\n  active: false,\n});',
    );
    // The platform did not say: the credential stays as it is.
    expect(text).toContain('  accessKeyId: "CPAKEEEEEEEEEEEEEEE1",\n});');
    // Declared after the bucket it refers to.
    expect(text.indexOf("const mediaLogs =")).toBeLessThan(text.indexOf("mediaLogs.bucketId"));
  });

  it("refers to a bucket the stack manages already by its id", () => {
    const held = readHoldings({
      deployment: {
        resources: [
          { urn: "urn:pulumi:d::p::cloudplatform:index:Bucket::logs", type: "cloudplatform:index:Bucket", id: "bkt_1" },
        ],
      },
    });
    const partial = programFileText(plan(project(), { target: held }), base, "dev");
    expect(partial).toContain('  // bucket "media-logs", which the stack manages already\n  bucketId: "bkt_1",');
  });

  it("holds no secret and nothing that changes between runs", () => {
    expect(text).not.toMatch(/secretAccessKey|apiKey:|cp-/);
    expect(text).not.toMatch(/\d{4}-\d{2}-\d{2}T/);
    expect(text.startsWith("// Written by cloudplatform-import: 3 zones, 5 buckets, 5 credentials")).toBe(true);
  });
});

describe("the program file, written again", () => {
  const first = plan(project(), { target: emptyHoldings });
  const firstText = programFileText(first, base, "dev");
  const grown = (): Inventory => {
    const p = project();
    return {
      ...p,
      buckets: [...p.buckets, bucket("bkt_9", "media_logs")],
      zones: [...p.zones, zone("zone_9", "new.example")],
    };
  };

  it("reads back what it declares: every id, every name", () => {
    const d = declaredIn(firstText);
    expect(d.names).toEqual(new Set(first.items.map((i) => i.name)));
    expect(d.zones.size + d.buckets.size + d.credentials.size).toBe(first.items.length);
    for (const i of first.items) {
      const own = i.kind === "BucketCredential" ? i.accessKeyId : i.id;
      expect([...d.zones, ...d.buckets, ...d.credentials]).toContain(own);
    }
  });

  it("keeps every earlier declaration as it is (an edit too), adds the new ones under fresh names, lists all in `imported`", () => {
    const edited = firstText.replace('name: "example.com",', 'name: "example.com", // ours now');
    const d = declaredIn(edited);
    const target = { ...emptyHoldings, zones: d.zones, buckets: d.buckets, credentials: d.credentials, names: d.names };
    const added = plan(grown(), { target });
    expect(added.items.map((i) => i.id)).toEqual(["zone_9", "bkt_9"]);
    // Named apart from what the file declares (`mediaLogs`, `mediaLogs2` are taken).
    expect(added.items.map((i) => i.name)).toEqual(["newExampleZone", "mediaLogs3"]);
    const again = programFileText(added, base, "dev", edited);
    expect(again.startsWith(edited.split("\n// Every object this file declares")[0] ?? "")).toBe(true);
    expect(again).toContain('name: "example.com", // ours now');
    expect(again).toContain("// Written by cloudplatform-import: 1 zone, 1 bucket, 0 credentials");
    const all = [...first.items, ...added.items].map((i) => i.name);
    expect(again).toContain(`export const imported = [${all.map((n) => `\n  ${n},`).join("")}\n];\n`);
    expect(again.match(/^export const imported =/gm)).toHaveLength(1);
    expect(declaredIn(again).names.size).toBe(all.length);
  });
});

describe("names YAML reads as another type", () => {
  it.each([
    "0x1f",
    "true",
    "1e3",
    "null",
    "~",
    "yes",
    ".5",
    "No",
    "on",
    "017",
    "0o17",
    "1_000",
    "1:30",
    ".inf",
    "2026-01-02",
    "12",
  ])("%s: said to be quoted", (name) => expect(yamlReadsAsOtherType(name)).toBe(true));
  it.each(["0day", "media-logs", "3d-assets", "example.com", "1e3.example", "yes-please", "0x1g", "a1", "1.2.3"])(
    "%s: a string already",
    (name) => expect(yamlReadsAsOtherType(name)).toBe(false),
  );
});

describe("releasing a moved stack", () => {
  const held = (resources: object[]) => readHoldings({ deployment: { resources } });
  const old = held([
    { urn: "u:b", type: "pulumi-nodejs:dynamic/cloudplatform:Bucket", id: "bkt_1", protect: true },
    { urn: "u:c", type: "pulumi-nodejs:dynamic/cloudplatform:BucketCredential", id: "AK1", outputs: {} },
    { urn: "u:k", type: "pulumi-nodejs:dynamic/cloudplatform:ApiKey", id: "apikey" },
  ]);

  it("removes nothing while the new stack lacks any of the old stack's objects", () => {
    const r = releasePlan(old, held([{ urn: "n:b", type: "cloudplatform:index:Bucket", id: "bkt_1" }]));
    expect(r.urns).toEqual([]);
    expect(r.missing.map((m) => m.id)).toEqual(["AK1"]);
  });

  it("removes every zone, bucket and credential once the new stack holds them all; the rest stays, said so", () => {
    const r = releasePlan(
      old,
      held([
        { urn: "n:b", type: "cloudplatform:index:Bucket", id: "bkt_1" },
        { urn: "n:c", type: "cloudplatform:index:BucketCredential", id: "bkt_1/AK1" },
      ]),
    );
    expect(r.urns).toEqual(["u:b", "u:c"]);
    expect(r.protectedCount).toBe(1);
    expect(r.notes).toEqual([
      'ApiKey "" stays in the old stack: it cannot be imported, and deleting it there changes nothing on the platform.',
    ]);
  });
});

describe("the command, outside a Pulumi project (settings from the environment)", () => {
  useApi();
  let dir: string;
  const saved = { ...process.env };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cloudplatform-import-"));
    process.env["CLOUDPLATFORM_BASE_URL"] = base;
    process.env["CLOUDPLATFORM_API_KEY"] = apiKey;
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
    process.env = { ...saved };
  });

  /** The command's exit code must be 0; its lines on stdout. */
  async function command(args: readonly string[]): Promise<string[]> {
    const lines: string[] = [];
    expect(
      await main(
        args,
        (l) => lines.push(l),
        () => undefined,
      ),
    ).toBe(0);
    return lines;
  }

  /** The project on every page of a Link-header list, two items a page. */
  function pagedProject(): void {
    const page = (path: string, items: object[], at: number) => {
      const next: Record<string, string> =
        at + 2 < items.length ? { link: `<${path}?page=${at / 2 + 2}>; rel="next"` } : {};
      const request =
        at === 0
          ? nock(base).get(path)
          : nock(base)
              .get(path)
              .query({ page: String(at / 2 + 1) });
      request.reply(200, items.slice(at, at + 2), next);
    };
    const pages = (path: string, items: object[]) => {
      for (let at = 0; at < Math.max(items.length, 1); at += 2) page(path, items, at);
    };
    pages("/dns/zones", [{ id: "zone_1", name: "example.com", nameservers: [] }]);
    pages("/object-storage/buckets", [
      { id: "bkt_1", name: "media-logs", storage_class: "Archive" },
      { id: "bkt_2", name: "a.b", storage_class: "Standard" },
      { id: "bkt_3", name: "z-z", storage_class: "Standard" },
    ]);
    pages("/object-storage/buckets/bkt_1/credentials", [
      { access_key_id: "CPAK000000000000AAA1", active: true },
      { access_key_id: "CPAK000000000000AAA2", active: false },
      { access_key_id: "CPAK000000000000AAA3", active: true },
    ]);
    pages("/object-storage/buckets/bkt_2/credentials", []);
    pages("/object-storage/buckets/bkt_3/credentials", []);
  }

  it("--dry-run lists what it would import, on every page, and writes nothing", async () => {
    pagedProject();
    const lines = await command(["--cwd", dir, "--dry-run"]);
    expect(readdirSync(dir)).toEqual([]);
    expect(lines).toContain('  + BucketCredential mediaLogsKeyAaa2  CPAK000000000000AAA2 of "media-logs", deactivated');
    expect(lines.at(-2)).toMatch(/^cloudplatform-import: 1 zone, 3 buckets, 3 credentials to import \(7 objects\);/);
    expect(lines.at(-1)).toBe("dry run: nothing was written.");
  });

  it("writes the import file and the program file, and reports progress", async () => {
    pagedProject();
    const lines: string[] = [];
    const progress: string[] = [];
    expect(
      await main(
        ["--cwd", dir],
        (l) => lines.push(l),
        (l) => progress.push(l),
      ),
    ).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["cloudplatform-import.json", "cloudplatform-imported.ts"]);
    const file = JSON.parse(readFileSync(join(dir, "cloudplatform-import.json"), "utf8")) as { resources: unknown[] };
    expect(file.resources).toHaveLength(7);
    expect(readFileSync(join(dir, "cloudplatform-imported.ts"), "utf8")).toContain("bucketId: mediaLogs.bucketId,");
    expect(progress.at(-1)).toBe(
      "cloudplatform-import: listed 1 zone and 3 buckets; credentials of 3 of them (3 credentials).",
    );
    expect(lines.join("\n")).not.toContain(apiKey);
  });

  it("run again, nothing new: the program file stays as it is, the import file lists all still, a stale second file goes", async () => {
    pagedProject();
    await command(["--cwd", dir]);
    const program = join(dir, "cloudplatform-imported.ts");
    const first = readFileSync(program, "utf8");
    // As an earlier run that found a zone named like a bucket leaves it.
    writeFileSync(join(dir, "cloudplatform-import-2.json"), '{"resources":[]}');
    pagedProject();
    const lines = await command(["--cwd", dir]);
    expect(lines).toContain(
      "  note: kept the 7 declarations earlier runs wrote to cloudplatform-imported.ts, and added none: it declares every object above.",
    );
    expect(readFileSync(program, "utf8")).toBe(first);
    const file = JSON.parse(readFileSync(join(dir, "cloudplatform-import.json"), "utf8")) as { resources: unknown[] };
    expect(file.resources).toHaveLength(7);
    expect(readdirSync(dir).sort()).toEqual(["cloudplatform-import.json", "cloudplatform-imported.ts"]);
  });

  it("refuses to write where Node would load something else for the program's import, and writes nothing", async () => {
    for (const shadow of ["cloudplatform-imported.json", "cloudplatform-imported.js", "cloudplatform-imported"]) {
      const here = mkdtempSync(join(tmpdir(), "cloudplatform-import-shadow-"));
      try {
        if (shadow.includes(".")) writeFileSync(join(here, shadow), "{}");
        else mkdirSync(join(here, shadow));
        await expect(
          main(
            ["--cwd", here],
            () => undefined,
            () => undefined,
          ),
        ).rejects.toThrow(/would be loaded instead of cloudplatform-imported\.ts .*Nothing was written\./);
        expect(readdirSync(here)).toEqual([shadow]);
      } finally {
        rmSync(here, { recursive: true, force: true });
      }
    }
  });

  it("says which names to quote in the YAML that `pulumi import` writes", async () => {
    nock(base).get("/dns/zones").reply(200, []);
    nock(base)
      .get("/object-storage/buckets")
      .reply(200, [
        { id: "bkt_1", name: "0x1f", storage_class: "Standard" },
        { id: "bkt_2", name: "1e3", storage_class: "Standard" },
        { id: "bkt_3", name: "plain", storage_class: "Standard" },
      ]);
    for (const id of ["bkt_1", "bkt_2", "bkt_3"])
      nock(base).get(`/object-storage/buckets/${id}/credentials`).reply(200, []);
    const lines = await command(["--cwd", dir, "--dry-run"]);
    expect(lines.join("\n")).toContain('    name: 0x1f  →  name: "0x1f"\n    name: 1e3  →  name: "1e3"');
    expect(lines.join("\n")).not.toContain("name: plain");
  });

  it("lists through the provider's own calls (discover with a lister), a few buckets at a time", async () => {
    let inFlight = 0;
    let most = 0;
    const inventory = await discover(
      {
        zones: async () => [],
        buckets: async () => Array.from({ length: 20 }, (_, i) => bucket(`b${i}`, `b-${i}`)),
        credentials: async () => {
          most = Math.max(most, ++inFlight);
          await new Promise((r) => setTimeout(r, 2));
          inFlight--;
          return [key("CPAK1")];
        },
      },
      { concurrency: 3 },
    );
    expect(inventory.credentials.size).toBe(20);
    expect(most).toBe(3);
  });
});
