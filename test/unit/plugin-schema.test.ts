// The package schema the executable provider serves (GetSchema): every core is in it with the
// inputs its check accepts, secret outputs and secret settings are flagged. The CLI's own schema
// validator runs on it in test/e2e/plugin.test.ts.
import { describe, expect, it } from "vitest";
import type { Json } from "../../provider/core.js";
import { secretOutputs } from "../../provider/fields.js";
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
interface PackageSpec {
  readonly name: string;
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
      expect(Object.keys(settings).sort()).toEqual(["apiKey", "apiUrl", "baseUrl", "s3Url", "token"]);
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
