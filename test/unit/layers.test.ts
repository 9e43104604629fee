// The layer list of docs/architecture.md is what the code does: every file of provider/ and sdk/
// belongs to one layer of the list, imports only from its own layer or those below it, and no
// chain of imports comes back to where it started. The list is read from the document itself, as
// errors.test.ts reads the error codes from the contract, so the two cannot drift apart.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(__dirname, "../..");

interface Layer {
  /** Top of the list first: index 0 may import from every other layer. */
  readonly index: number;
  readonly patterns: readonly string[];
  readonly text: string;
}

/**
 * The layers of the first code block under "## The layers": each line that starts with a path is
 * one layer, its leading path patterns (`*` within a folder, `**` across folders) and then what it
 * is. Other lines (arrows, notes) are drawing.
 */
export function layersOf(markdown: string): Layer[] {
  const section = /## The layers\n[\s\S]*?```\n([\s\S]*?)```/.exec(markdown)?.[1] ?? "";
  const layers: Layer[] = [];
  for (const line of section.split("\n")) {
    const words = line.trim().split(/\s+/);
    const patterns: string[] = [];
    while (words.length > 0 && /^(provider|sdk)\/\S*$/.test(words[0] as string)) patterns.push(words.shift() as string);
    if (patterns.length > 0) layers.push({ index: layers.length, patterns, text: words.join(" ") });
  }
  return layers;
}

function patternRegex(pattern: string): RegExp {
  const body = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}

/** How specific a pattern is: its characters that are not wildcards. The most specific match wins. */
const specificity = (pattern: string) => pattern.replace(/\*/g, "").length;

/** The layer of `file`, by the most specific pattern that matches it; a tie between two layers is an error. */
export function layerOf(layers: readonly Layer[], file: string): Layer | string {
  const matches = layers.flatMap((layer) =>
    layer.patterns.filter((p) => patternRegex(p).test(file)).map((pattern) => ({ layer, pattern })),
  );
  if (matches.length === 0) return `${file} belongs to no layer of docs/architecture.md`;
  const best = Math.max(...matches.map((m) => specificity(m.pattern)));
  const winners = new Set(matches.filter((m) => specificity(m.pattern) === best).map((m) => m.layer));
  if (winners.size > 1) return `${file} belongs to ${winners.size} layers equally: make one pattern more specific`;
  return [...winners][0] as Layer;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
    .map((f) => `${folder}/${f.split("\\").join("/")}`)
    .sort();
}

/**
 * The files of this repository that `text` (the source of `file`) imports: static imports and
 * exports (types included: a type import is a dependency the layers must show too), `import()`
 * and `require()` of relative paths. Packages and `node:` modules are not the layers' concern.
 */
export function importsOf(file: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;"']*?\bfrom\s*["'](\.[^"']+)["']/gm),
    ...text.matchAll(/^\s*import\s*["'](\.[^"']+)["']/gm),
    ...text.matchAll(/\b(?:import|require)\s*\(\s*["'](\.[^"']+)["']\s*\)/g),
  ].map((m) => m[1] as string);
  return [...new Set(specifiers)].map((s) =>
    relative(root, resolve(root, dirname(file), s.replace(/\.js$/, ".ts")))
      .split("\\")
      .join("/"),
  );
}

/** Every circle of imports in `graph`, each as its files in order (the first one again at the end). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === "open") found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

/**
 * The folder of `file` under `provider/resources/` (`bucket-credential` for
 * `provider/resources/bucket-credential/core.ts`); undefined for a file beside the folders.
 */
const resourceFolderOf = (file: string) => /^provider\/resources\/([^/]+)\//.exec(file)?.[1];

/**
 * Every import from one resource's folder into another's: a resource's folder holds what only it
 * needs, and what two share sits below them (provider/platform/, provider/s3/) or beside the folders
 * (provider/resources/*.ts). The layer list alone cannot say this: every folder is on one line.
 */
export function crossFolderImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  for (const [file, imports] of graph) {
    const from = resourceFolderOf(file);
    for (const target of imports) {
      const to = resourceFolderOf(target);
      if (from !== undefined && to !== undefined && to !== from) found.push(`${file} imports ${target}`);
    }
  }
  return found;
}

describe("the layers of docs/architecture.md", () => {
  const layers = layersOf(readFileSync(join(root, "docs/architecture.md"), "utf8"));
  const files = [...sourceFiles("provider"), ...sourceFiles("sdk")];
  const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(join(root, f), "utf8"))]));

  it("are listed, and each of their patterns names a file that exists", () => {
    expect(layers.length).toBeGreaterThan(5);
    const unused = layers.flatMap((l) => l.patterns).filter((p) => !files.some((f) => patternRegex(p).test(f)));
    expect(unused, "patterns that match no file").toEqual([]);
  });

  it("place every file of provider/ and sdk/ in exactly one layer", () => {
    const problems = files.map((f) => layerOf(layers, f)).filter((l): l is string => typeof l === "string");
    expect(problems).toEqual([]);
  });

  it("are kept: no file imports from a layer above its own", () => {
    const upward: string[] = [];
    for (const [file, imports] of graph) {
      const from = layerOf(layers, file);
      for (const target of imports) {
        expect(
          graph.has(target) || !/^(provider|sdk)\//.test(target),
          `${file} imports ${target}, which does not exist`,
        ).toBe(true);
        const to = layerOf(layers, target);
        if (typeof from === "string" || typeof to === "string" || !graph.has(target)) continue;
        if (to.index < from.index) upward.push(`${file} (${from.text}) imports ${target} (${to.text}), a layer above`);
      }
    }
    expect(upward).toEqual([]);
  });

  it("keep each resource's folder to itself: none imports from another resource's folder", () => {
    expect(crossFolderImports(graph)).toEqual([]);
  });

  it("put the platform's calls and S3 below the resources and above the requests", () => {
    const at = (file: string) => {
      const layer = layerOf(layers, file);
      if (typeof layer === "string") throw new Error(layer);
      return layer.index;
    };
    const calls = [at("provider/platform/bucket/api.ts"), at("provider/s3/objects.ts")];
    for (const below of calls) {
      expect(below, "a resource's core above the calls").toBeGreaterThan(at("provider/resources/bucket/core.ts"));
      expect(below, "what cores share above the calls").toBeGreaterThan(at("provider/resources/bucket-facts.ts"));
      expect(below, "the requests below the calls").toBeLessThan(at("provider/client.ts"));
      expect(below, "the stages below the calls").toBeLessThan(at("provider/request/send.ts"));
    }
  });

  it("have no circle: no chain of imports comes back to where it started", () => {
    expect(circles(graph).map((c) => c.join(" → "))).toEqual([]);
  });
});

describe("the layer check itself", () => {
  const layers = layersOf("## The layers\n\n```\nprovider/top.ts  the top\n  │\nprovider/*.ts  the rest\n```\n");

  it("reads a layer per line that starts with a path, the most specific pattern deciding", () => {
    expect(layers.map((l) => l.patterns)).toEqual([["provider/top.ts"], ["provider/*.ts"]]);
    expect(layerOf(layers, "provider/top.ts")).toMatchObject({ index: 0 });
    expect(layerOf(layers, "provider/low.ts")).toMatchObject({ index: 1, text: "the rest" });
    expect(layerOf(layers, "provider/sub/low.ts")).toMatch(/no layer/);
  });

  it("sees every form of import, and finds a circle", () => {
    const text = [
      'import type { A } from "./a.js";',
      'export { b } from "../b.js";',
      'import "./c.js";',
      'const d = require("./d.js");',
      'void import("./e.js");',
      'import { z } from "zod";',
    ].join("\n");
    expect(importsOf("provider/x/f.ts", text)).toEqual([
      "provider/x/a.ts",
      "provider/b.ts",
      "provider/x/c.ts",
      "provider/x/d.ts",
      "provider/x/e.ts",
    ]);
    const graph = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(circles(graph)).toEqual([["a", "b", "c", "a"]]);
  });

  it("finds an import from one resource's folder into another's, and only that", () => {
    const graph = new Map([
      ["provider/resources/synced-folder/core.ts", ["provider/resources/bucket-object/api.ts"]],
      ["provider/resources/bucket/core.ts", ["provider/resources/bucket/fields.ts", "provider/platform/bucket/api.ts"]],
      ["provider/resources/bucket-facts.ts", ["provider/resources/bucket/fields.ts"]],
      ["provider/functions.ts", ["provider/resources/dns-zone/core.ts"]],
    ]);
    expect(crossFolderImports(graph)).toEqual([
      "provider/resources/synced-folder/core.ts imports provider/resources/bucket-object/api.ts",
    ]);
  });
});
