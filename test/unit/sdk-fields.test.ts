// The SDK's property docs are generated from the field tables (provider/resources/*/fields.ts) by
// `npm run gen:sdk-docs` (scripts/lib/sdk-docs.mts): this test fails when sdk/ is not what the
// generator makes of today's tables (a description changed without regenerating, or a property
// added to one side only), and says which command to run.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTables, sdkDocs, sdkFiles, type DocTable } from "../../scripts/lib/sdk-docs.mts";
import { cores } from "../../provider/plugin/cores.js";

const root = join(__dirname, "../..");

describe("SDK docs follow the field tables", () => {
  it("sdk/ is what `npm run gen:sdk-docs` makes of the tables", async () => {
    const tables = await loadTables(join(root, "provider/resources"), ".ts");
    // Every resource the providers serve has its table among those the generator reads.
    expect(tables.map((t) => t.type).sort()).toEqual(cores.map((c) => c.table.type).sort());
    for (const { file, text, generated } of sdkFiles(join(root, "sdk"), tables)) {
      expect(text, `sdk/${file} is out of date with the field tables: run \`npm run gen:sdk-docs\``).toBe(generated);
    }
  });

  it("every table describes every field", () => {
    for (const core of cores) {
      for (const [name, f] of Object.entries(core.table.fields))
        expect(f.description, `${core.table.type}.${name}`).not.toBe("");
    }
  });
});

describe("the generator (scripts/lib/sdk-docs.mts)", () => {
  const table: DocTable = {
    type: "Thing",
    fields: {
      size: { input: "program", default: 3, description: "How big the thing is, in units." },
      label: { input: "program", description: "Shown in lists.", sdk: { name: "title", description: "The title." } },
      thingId: { description: "The platform's id." },
    },
  };
  const source = [
    "export interface ThingArgs {",
    "  /**",
    "   * Old text.",
    "   * @default 1",
    "   * @example 4",
    "   */",
    "  size?: number;",
    "  title?: string;",
    "}",
    "export class Thing {",
    "  declare public readonly size: number;",
    "  declare public readonly label: string;",
    "  declare public readonly thingId: string;",
    "  constructor() {}",
    "}",
    "",
  ].join("\n");

  it("writes each summary and table default, keeps the comment's other tags, and changes nothing more on a second run", () => {
    const once = sdkDocs("thing.ts", source, [table]);
    expect(once).toBe(
      [
        "export interface ThingArgs {",
        "  /**",
        "   * How big the thing is, in units.",
        "   * @default 3",
        "   * @example 4",
        "   */",
        "  size?: number;",
        "  /** The title. */",
        "  title?: string;",
        "}",
        "export class Thing {",
        "  /** How big the thing is, in units. */",
        "  declare public readonly size: number;",
        "  /** Shown in lists. */",
        "  declare public readonly label: string;",
        "  /** The platform's id. */",
        "  declare public readonly thingId: string;",
        "  constructor() {}",
        "}",
        "",
      ].join("\n"),
    );
    expect(sdkDocs("thing.ts", once, [table])).toBe(once);
  });

  it("wraps a long summary within prettier's 120 columns", () => {
    const long = { ...table, fields: { ...table.fields, thingId: { description: "word ".repeat(40).trim() } } };
    const lines = sdkDocs("thing.ts", source, [long]).split("\n");
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(120);
    const words = lines.filter((l) => l.includes("* word")).map((l) => l.replace(/^\s*\* /, ""));
    expect(words.length).toBeGreaterThan(1);
    expect(words.join(" ")).toBe("word ".repeat(40).trim());
  });

  it("refuses a property on one side only, naming it", () => {
    const extra = { ...table, fields: { ...table.fields, color: { input: "program", description: "Its color." } } };
    expect(() => sdkDocs("thing.ts", source, [extra])).toThrow(
      /ThingArgs has no property color[\s\S]*Thing has no property color/,
    );
    const fewer = { ...table, fields: { size: table.fields.size!, label: table.fields.label! } };
    expect(() => sdkDocs("thing.ts", source, [fewer])).toThrow(/Thing\.thingId is no field of the Thing table/);
  });
});
