// The package schema the executable provider serves (GetSchema): every core is in it with the
// inputs its check accepts, secret outputs and secret settings are flagged. The CLI's own schema
// validator runs on it in test/e2e/plugin.test.ts.
import { describe, expect, it } from "vitest";
import type { Json } from "../../provider/vocabulary.js";
import { secretOutputs } from "../../provider/tables.js";
import { firstSentence, lookups } from "../../provider/functions.js";
import { dnsZoneTable } from "../../provider/resources/dns-zone/fields.js";
import { cores, tokenOf } from "../../provider/plugin/cores.js";
import { createProvider } from "../../provider/plugin/provider.js";
import { ctx } from "./support.js";

interface PropertySpec {
  readonly type: string;
  readonly secret?: boolean;
  readonly description?: string;
}
interface ResourceSpec {
  readonly inputProperties: Record<string, PropertySpec>;
  readonly requiredInputs: string[];
  readonly properties: Record<string, PropertySpec>;
  readonly required: string[];
}
interface ObjectSpec {
  readonly properties: Record<string, PropertySpec & { items?: { $ref: string } }>;
  readonly required: string[];
}
interface FunctionSpec {
  readonly description: string;
  readonly inputs?: ObjectSpec;
  readonly outputs: ObjectSpec;
}
interface PackageSpec {
  readonly name: string;
  readonly meta: { supportPack: boolean };
  readonly language: Record<string, Record<string, unknown>>;
  readonly types: Record<string, ObjectSpec & { type: string }>;
  readonly functions: Record<string, FunctionSpec>;
  readonly version: string;
  readonly config: { variables: Record<string, PropertySpec> };
  readonly provider: { inputProperties: Record<string, PropertySpec> };
  readonly resources: Record<string, ResourceSpec>;
}

async function schema(): Promise<PackageSpec> {
  return JSON.parse(await createProvider({ version: "2.0.1" }).getSchema!()) as PackageSpec;
}

const sample: Record<string, Json> = { string: "x", boolean: true, number: 1, integer: 1, object: {}, array: [] };

describe("package schema", () => {
  it("is the cloudplatform package at the provider's version", async () => {
    const s = await schema();
    expect(s.name).toBe("cloudplatform");
    expect(s.version).toBe("2.0.1");
  });

  it("has exactly one resource per core, by type token", async () => {
    const s = await schema();
    expect(Object.keys(s.resources).sort()).toEqual(cores.map((c) => tokenOf(c.table.type)).sort());
  });

  it("flags every secret output of the cores, and only those", async () => {
    const s = await schema();
    for (const core of cores) {
      const props = s.resources[tokenOf(core.table.type)]!.properties;
      const secret = Object.keys(props).filter((k) => props[k]!.secret === true);
      expect(secret.sort(), core.table.type).toEqual(secretOutputs(core.table).sort());
    }
  });

  it("flags the credentials among the config variables and the provider's inputs", async () => {
    const s = await schema();
    for (const settings of [s.config.variables, s.provider.inputProperties]) {
      expect(Object.keys(settings).sort()).toEqual([
        "apiKey",
        "apiUrl",
        "baseUrl",
        "maxConcurrentRequests",
        "maxRequestsPerSecond",
        "s3Url",
        "token",
      ]);
      expect(settings["maxRequestsPerSecond"]!.type).toBe("number");
      expect(
        Object.keys(settings)
          .filter((k) => settings[k]!.secret === true)
          .sort(),
      ).toEqual(["apiKey", "token"]);
    }
  });

  it("is consistent: required names exist, inputs are also outputs, every property is described", async () => {
    const s = await schema();
    for (const [token, r] of Object.entries(s.resources)) {
      for (const name of r.requiredInputs) expect(r.inputProperties, `${token} ${name}`).toHaveProperty(name);
      for (const name of r.required) expect(r.properties, `${token} ${name}`).toHaveProperty(name);
      for (const name of Object.keys(r.inputProperties)) expect(r.properties, `${token} ${name}`).toHaveProperty(name);
      for (const p of [...Object.values(r.inputProperties), ...Object.values(r.properties)]) {
        expect(Object.keys(sample)).toContain(p.type);
        expect(p.description?.length).toBeGreaterThan(0);
      }
    }
  });

  it("declares the inputs each core's check accepts, and a core that refuses unknown inputs refuses nothing it declares", async () => {
    const s = await schema();
    for (const core of cores) {
      const probe = core.check(ctx("r"), undefined, { notAnInput: "x" });
      const strict = probe.failures.some((f) => f.property === "notAnInput");
      if (!strict) continue;
      for (const [name, spec] of Object.entries(s.resources[tokenOf(core.table.type)]!.inputProperties)) {
        const result = core.check(ctx("r"), undefined, { [name]: sample[spec.type]! });
        const refused = result.failures.filter((f) => f.property === name && /has no property/.test(f.reason));
        expect(refused, `${core.table.type}.${name}`).toEqual([]);
      }
    }
  });
});

describe("package schema: functions", () => {
  it("has one function per lookup of the TypeScript SDK, by token", async () => {
    const s = await schema();
    expect(Object.keys(s.functions).sort()).toEqual(
      ["getBucket", "getBucketCredentials", "getBuckets", "getDnsZone", "getDnsZones"].map(tokenOf),
    );
    expect(Object.keys(s.functions).sort()).toEqual(lookups.map((l) => tokenOf(l.name)).sort());
  });

  it("declares the arguments each lookup takes, required ones required", async () => {
    const s = await schema();
    expect(s.functions[tokenOf("getDnsZone")]?.inputs).toMatchObject({
      properties: { name: { type: "string" } },
      required: ["name"],
    });
    expect(s.functions[tokenOf("getBucketCredentials")]?.inputs?.required).toEqual(["bucketId"]);
    expect(s.functions[tokenOf("getDnsZones")]?.inputs).toBeUndefined();
  });

  it("returns an object: a lookup by name its fields, a list lookup its items under one key of a declared type", async () => {
    const s = await schema();
    const zone = s.functions[tokenOf("getDnsZone")]!.outputs;
    expect(Object.keys(zone.properties).sort()).toEqual(["createdAt", "name", "nameservers", "status", "zoneId"]);
    expect(zone.required.sort()).toEqual(["name", "nameservers", "zoneId"]);
    for (const [fn, key, type] of [
      ["getDnsZones", "zones", "DnsZoneInfo"],
      ["getBuckets", "buckets", "BucketInfo"],
      ["getBucketCredentials", "credentials", "BucketCredentialInfo"],
    ] as const) {
      const outputs = s.functions[tokenOf(fn)]!.outputs;
      expect(outputs.required).toEqual([key]);
      expect(outputs.properties[key]).toMatchObject({ type: "array", items: { $ref: `#/types/${tokenOf(type)}` } });
      expect(s.types[tokenOf(type)]?.type).toBe("object");
    }
    expect(Object.keys(s.types[tokenOf("BucketCredentialInfo")]!.properties)).not.toContain("secretAccessKey");
  });

  it("describes results with the resources' own texts (what the value is, not what changing it does)", async () => {
    const s = await schema();
    const zone = s.functions[tokenOf("getDnsZone")]!.outputs.properties;
    expect(zone["zoneId"]?.description).toBe(dnsZoneTable.fields.zoneId.description);
    expect(zone["name"]?.description).toBe("The zone's domain name.");
    expect(dnsZoneTable.fields.name.description).toMatch(/^The zone's domain name\. Stored/);
    for (const spec of [...Object.values(s.functions), ...Object.values(s.types)]) {
      const outputs = "outputs" in spec ? (spec as FunctionSpec).outputs : (spec as ObjectSpec);
      for (const p of Object.values(outputs.properties)) expect(p.description?.length).toBeGreaterThan(0);
    }
  });

  it("cuts a text at its first sentence, not at an abbreviation", () => {
    expect(firstSentence("As the API reports it, e.g. `active`.")).toBe("As the API reports it, e.g. `active`.");
    expect(firstSentence("The name (a-z. 0-9). Changing it replaces it.")).toBe("The name (a-z. 0-9).");
    expect(firstSentence("No full stop")).toBe("No full stop");
  });
});

describe("package schema: names per language", () => {
  it("names a Node package that is not this (dynamic) package, and the Python package pulumi_cloudplatform", async () => {
    const s = await schema();
    const own = (await import("../../package.json")).default.name;
    expect(s.language["nodejs"]?.["packageName"]).toBe("@pulumi-cloudplatform/sdk");
    expect(s.language["nodejs"]?.["packageName"]).not.toBe(own);
    expect(s.language["python"]?.["packageName"]).toBe("pulumi_cloudplatform");
  });

  it("puts the Go SDK in a module of its own under this project's module path, at sdks/go", async () => {
    const s = await schema();
    expect(s.language["go"]?.["importBasePath"]).toBe(
      "github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform",
    );
    // supportPack: the generator writes sdks/go/go.mod for the module one folder up.
    expect(s.meta.supportPack).toBe(true);
  });

  it("gives C# a root namespace of its own", async () => {
    const s = await schema();
    expect(s.language["csharp"]).toMatchObject({
      rootNamespace: "CloudPlatform",
      namespaces: { cloudplatform: "Pulumi" },
    });
  });
});
