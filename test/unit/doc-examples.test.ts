// The examples a reader copies must compile against the SDKs as published: every fenced `ts` block
// of the documentation (README.md, docs/**/*.md, examples/*/README.md, emulator/README.md). A page's
// blocks, in order, make one program (a later block uses what an earlier one declared, as a reader
// pastes them into one index.ts); a page whose example continues a program of another page gets
// that program's names from `continues` below. Each is type-checked with the project's strict
// options, `pulumi-cloudplatform` resolved to the dynamic SDK's source, `@pulumi-cloudplatform/sdk`
// to the generated one's and `cloudplatform-emulator` to the emulator's. A renamed input or output,
// a changed type or a removed lookup breaks this test before it breaks a reader. It runs in seconds,
// from the sources, with nothing built; test/e2e/doc-programs.test.ts checks the same pages against
// the packed packages as npm installs them (and deploys the programs), and the pages it leaves to
// this test are the harness's excerpt, the emulator's top-level await and docs/import.md's program
// on the file `cloudplatform-import` writes.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { programFileText } from "../../provider/import/files.js";
import { plan } from "../../provider/import/plan.js";
import { emptyHoldings } from "../../provider/import/stack.js";
import { buildSchema } from "../../provider/plugin/schema.js";
import { yamlProblems, type SchemaSpec } from "../support/schema-docs.js";
import { blocksOf, programContinues, recordUse } from "../support/doc-blocks.mts";
import { docPages } from "../support/doc-links.mts";

const root = join(__dirname, "../..");

/** The fenced `ts` (or `typescript`) blocks of a Markdown text, list items' indented ones included. */
function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^( *)```(?:ts|typescript)\n([\s\S]*?)^ *```$/gm)].map((m) =>
    m[2]!.replace(new RegExp(`^ {0,${m[1]!.length}}`, "gm"), ""),
  );
}

/** What a page's example takes from a program its text names (the page says which). */
const continues: Record<string, string> = {
  ...programContinues,
  // A test of the harness, as in test/e2e/: the hooks it names come from test/support/.
  "docs/architecture.md": `import { describe, expect, it } from "vitest";
import { useExampleStack } from "./support/hooks.js";
import { emulatorState } from "./support/platform.mts";
`,
};

/**
 * The diagnostics of each of `sources` (file name → text), compiled together as files
 * `<repo>/test/<name>` with the test tsconfig's options: one program, so the SDK and @pulumi/pulumi
 * are checked once for all of them.
 */
function diagnostics(sources: Record<string, string>): Record<string, string[]> {
  const configFile = join(root, "tsconfig.test.json");
  const config = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  );
  if (config === undefined) throw new Error(`cannot read ${configFile}`);
  // The generated Node.js SDK (the Registry's pages, docs/languages.md) and the emulator's package
  // (emulator/README.md), from their sources: nothing needs building first.
  const paths = {
    ...config.options.paths,
    "@pulumi-cloudplatform/sdk": [join(root, "sdks/nodejs/index.ts")],
    "cloudplatform-emulator": [join(root, "emulator/src/index.ts")],
  };
  const options = { ...config.options, paths };
  const files = new Map(Object.entries(sources).map(([name, text]) => [join(root, "test", name), text]));
  const names = new Map(Object.keys(sources).map((name) => [join(root, "test", name), name]));
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const text = files.get(fileName);
    return text === undefined
      ? getSourceFile(fileName, languageVersion, ...rest)
      : ts.createSourceFile(fileName, text, languageVersion, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => files.has(fileName) || fileExists(fileName);
  const program = ts.createProgram([...files.keys()], options, host);
  const found: Record<string, string[]> = Object.fromEntries(Object.keys(sources).map((name) => [name, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, "\n");
    const name = d.file === undefined ? undefined : names.get(d.file.fileName);
    const line = d.file === undefined ? 0 : d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1;
    // A diagnostic outside the examples (the SDK, the config) fails every example.
    for (const target of name === undefined ? Object.keys(sources) : [name]) {
      found[target]!.push(`${d.file?.fileName.replace(root, "") ?? "(config)"}:${line}: ${message}`);
    }
  }
  return found;
}

/** Every page with a `ts` block, and its program: the blocks in order, after what the page continues. */
const programs = new Map(
  docPages()
    .map((page) => [page, tsBlocks(readFileSync(join(root, page), "utf8"))] as const)
    .filter(([, blocks]) => blocks.length > 0)
    .map(([page, blocks]) => [page, `${continues[page] ?? ""}${blocks.join("\n")}\nexport {};\n`]),
);
/**
 * docs/import.md's index.ts uses the file `cloudplatform-import` writes beside it: what the command
 * writes for a small project (a zone, a bucket and its credential) is compiled beside the page's
 * program, so both the page and the generated file are checked against the SDK.
 */
const importedFile = programFileText(
  plan(
    {
      zones: [{ id: "zone_1", name: "example.com", status: "active", nameservers: [], created_at: undefined }],
      buckets: [{ id: "bkt_1", name: "media-logs", storage_class: "Standard", created_at: undefined }],
      credentials: new Map([
        [
          "bkt_1",
          [{ access_key_id: "CPAKAAAAAAAAAAAAL28M", active: true, bucket_id: undefined, created_at: undefined }],
        ],
      ]),
    },
    { target: emptyHoldings },
  ),
  "https://api.example-platform.com",
  "dev",
);

/** The file a page's program is compiled as: ESM (.mts) where it awaits at the top, as emulator/README.md does. */
const fileOf = (page: string) =>
  `doc-${page.replace(/[^a-z0-9]+/gi, "-")}.${/^await /m.test(programs.get(page) ?? "") ? "mts" : "ts"}`;
const resources = programs.get("docs/resources.md") ?? "";
const wrongResources = resources.replace("bucketId: bucket.bucketId", "bucketId: bucket.bucketIdentifier");
let checked: Record<string, string[]> | undefined;
/** The diagnostics of every program, computed once. */
const diagnosticsOf = (name: string): string[] =>
  (checked ??= diagnostics({
    ...Object.fromEntries([...programs].map(([page, program]) => [fileOf(page), program])),
    "doc-resources-wrong.ts": wrongResources,
    "cloudplatform-imported.ts": importedFile,
  }))[name] ?? [];

describe("the documentation's TypeScript examples", () => {
  it("are found on every page that has them (a page whose fences stop matching would be checked no more)", () => {
    expect([...programs.keys()]).toEqual(
      expect.arrayContaining([
        "README.md",
        "docs/_index.md",
        "docs/architecture.md",
        "docs/languages.md",
        "docs/objects.md",
        "docs/resources.md",
        "docs/rotation.md",
        "docs/state-backend.md",
        "docs/transcript.md",
        "emulator/README.md",
      ]),
    );
  });

  it("have one example per resource", () => {
    const all = [...programs.values()].join("\n");
    for (const resource of [
      "Bucket",
      "BucketCredential",
      "RotatingBucketCredential",
      "DnsZone",
      "ApiKey",
      "Transcript",
      "BucketObject",
      "SyncedFolder",
    ]) {
      expect(all).toContain(`new cloudplatform.${resource}(`);
    }
  });

  for (const page of programs.keys()) {
    it(`${page}: its examples compile, as one program, against the SDK`, () => {
      expect(diagnosticsOf(fileOf(page))).toEqual([]);
      const blocks = blocksOf(page, readFileSync(join(root, page), "utf8"));
      recordUse(
        blocks.filter((block) => /^(ts|typescript)$/.test(block.language)),
        "type-checked",
        "test/unit/doc-examples.test.ts",
      );
    }, 60_000);
  }

  it("the file cloudplatform-import writes, which docs/import.md's program uses, compiles against the SDK", () => {
    expect(importedFile).toContain("export const imported = [");
    expect(diagnosticsOf("cloudplatform-imported.ts")).toEqual([]);
  });

  it("a wrong example is caught (the check is not vacuous)", () => {
    expect(wrongResources).not.toEqual(resources);
    expect(diagnosticsOf("doc-resources-wrong.ts").join("\n")).toMatch(/bucketIdentifier/);
  }, 60_000);
});

/** The Pulumi YAML programs (fenced `yaml` blocks with `runtime: yaml`) of every page. */
const yamlPrograms = docPages().flatMap((page) =>
  [...readFileSync(join(root, page), "utf8").matchAll(/^```ya?ml\n([\s\S]*?)^```$/gm)]
    .map((m) => m[1]!)
    .filter((block) => /^runtime: yaml$/m.test(block))
    .map((program, i) => ({ page, i, program })),
);

describe("the documentation's YAML programs", () => {
  const schema = buildSchema("0.1.0") as unknown as SchemaSpec;

  it("are found where the pages have them", () => {
    expect([...new Set(yamlPrograms.map((p) => p.page))]).toEqual(
      expect.arrayContaining(["docs/_index.md", "docs/languages.md", "docs/executable-provider.md"]),
    );
  });

  for (const { page, i, program } of yamlPrograms) {
    it(`${page}, program ${i + 1}: declares only what the schema has`, () => {
      expect(yamlProblems(schema, program)).toEqual([]);
    });
  }

  it("a wrong program is caught (the check is not vacuous)", () => {
    const wrong = yamlPrograms[0]!.program.replace("${writer.accessKeyId}", "${writer.accessKeyIdentifier}");
    expect(yamlProblems(schema, wrong)).toEqual([
      "${writer.accessKeyIdentifier}: writer has no output accessKeyIdentifier",
    ]);
  });
});
