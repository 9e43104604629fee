// The examples a reader copies first must compile against the SDK as published: the README's
// "Resources" section (its TypeScript blocks, in order, make one program; the first block imports
// `pulumi` and `cloudplatform` for the others) and docs/transcript.md. Each is type-checked with the
// project's strict options and `pulumi-cloudplatform` resolved to the SDK's source. A renamed input
// or output, a changed type or a removed lookup breaks this test before it breaks a reader.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = join(__dirname, "../..");

/** The fenced `ts` blocks of a Markdown text. */
function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** The fenced `ts` blocks of the README section `## <heading>` (its subsections included). */
function sectionBlocks(readme: string, heading: string): string[] {
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "## ${heading}"`);
  const rest = readme.slice(start + heading.length + 5);
  const next = rest.search(/\n## /);
  return tsBlocks(next < 0 ? rest : rest.slice(0, next));
}

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
  const files = new Map(Object.entries(sources).map(([name, text]) => [join(root, "test", name), text]));
  const names = new Map(Object.keys(sources).map((name) => [join(root, "test", name), name]));
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) => {
    const text = files.get(fileName);
    return text === undefined
      ? getSourceFile(fileName, languageVersion, ...rest)
      : ts.createSourceFile(fileName, text, languageVersion, true);
  };
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => files.has(fileName) || fileExists(fileName);
  const program = ts.createProgram([...files.keys()], config.options, host);
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

const readme = readFileSync(join(root, "README.md"), "utf8");
const resources = sectionBlocks(readme, "Resources").join("\n");
const wrongResources = resources.replace("bucketId: bucket.bucketId", "bucketId: bucket.bucketIdentifier");
const transcriptDoc = tsBlocks(readFileSync(join(root, "docs/transcript.md"), "utf8")).join("\n");
let checked: Record<string, string[]> | undefined;
/** The diagnostics of the three programs, computed once. */
const diagnosticsOf = (name: string): string[] =>
  (checked ??= diagnostics({
    "readme-resources.ts": resources,
    "readme-resources-wrong.ts": wrongResources,
    "transcript-doc.ts": transcriptDoc,
  }))[name] ?? [];

describe("README.md, Resources", () => {
  it("has one example per resource", () => {
    for (const resource of ["Bucket", "BucketCredential", "DnsZone", "ApiKey", "Transcript"]) {
      expect(resources).toContain(`new cloudplatform.${resource}(`);
    }
  });

  it("its examples compile, as one program, against the SDK", () => {
    expect(diagnosticsOf("readme-resources.ts")).toEqual([]);
  }, 60_000);

  it("a wrong example is caught (the check is not vacuous)", () => {
    expect(wrongResources).not.toEqual(resources);
    expect(diagnosticsOf("readme-resources-wrong.ts").join("\n")).toMatch(/bucketIdentifier/);
  }, 60_000);
});

describe("docs/transcript.md", () => {
  it("its example compiles against the SDK", () => {
    expect(transcriptDoc).toContain("new cloudplatform.Transcript(");
    expect(diagnosticsOf("transcript-doc.ts")).toEqual([]);
  }, 60_000);
});
