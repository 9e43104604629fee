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

/** The diagnostics of `source` compiled as `<repo>/test/<name>` with the test tsconfig's options. */
function diagnostics(name: string, source: string): string[] {
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
  const file = join(root, "test", name);
  const host = ts.createCompilerHost(config.options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, ...rest) =>
    fileName === file
      ? ts.createSourceFile(fileName, source, languageVersion, true)
      : getSourceFile(fileName, languageVersion, ...rest);
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (fileName) => fileName === file || fileExists(fileName);
  const program = ts.createProgram([file], config.options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) =>
        `${d.file ? `${d.file.fileName.replace(root, "")}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1}: ` : ""}` +
        ts.flattenDiagnosticMessageText(d.messageText, "\n"),
    );
}

describe("README.md, Resources", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const blocks = sectionBlocks(readme, "Resources");

  it("has one example per resource", () => {
    const program = blocks.join("\n");
    for (const resource of ["Bucket", "BucketCredential", "DnsZone", "ApiKey", "Transcript"]) {
      expect(program).toContain(`new cloudplatform.${resource}(`);
    }
  });

  it("its examples compile, as one program, against the SDK", () => {
    expect(diagnostics("readme-resources.ts", blocks.join("\n"))).toEqual([]);
  }, 60_000);

  it("a wrong example is caught (the check is not vacuous)", () => {
    const wrong = blocks.join("\n").replace("bucketId: bucket.bucketId", "bucketId: bucket.bucketIdentifier");
    expect(wrong).not.toEqual(blocks.join("\n"));
    expect(diagnostics("readme-resources-wrong.ts", wrong).join("\n")).toMatch(/bucketIdentifier/);
  }, 60_000);
});

describe("docs/transcript.md", () => {
  it("its example compiles against the SDK", () => {
    const blocks = tsBlocks(readFileSync(join(root, "docs/transcript.md"), "utf8"));
    expect(blocks.length).toBeGreaterThan(0);
    expect(diagnostics("transcript-doc.ts", blocks.join("\n"))).toEqual([]);
  }, 60_000);
});
