// The README's per-language sections as a reader uses them: its code blocks, and its shell steps
// run with the reader's values (paths, addresses, the API key) put in place of the placeholders.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { repoRoot } from "./plugin-cli.js";

export interface CodeBlock {
  readonly language: string;
  readonly text: string;
}

/** The fenced code blocks of the section `### <heading>` (or of another `level`) of a README of the repository, in order. */
export async function readmeBlocks(heading: string, file = "README.md", level = 3): Promise<CodeBlock[]> {
  const readme = await readFile(path.join(repoRoot, file), "utf8");
  const title = `${"#".repeat(level)} ${heading}`;
  const start = readme.indexOf(`\n${title}\n`);
  if (start < 0) throw new Error(`${file} has no section "${title}"`);
  const rest = readme.slice(start + title.length + 2);
  const next = rest.search(/\n##+ /);
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ language: m[1]!, text: m[2]! }));
}

export interface ReaderValues {
  readonly repository: string;
  readonly baseUrl: string;
  readonly s3Url: string;
}

/**
 * A README shell block with the reader's values in place of its placeholders, and `steps`: lines
 * replaced by what the reader does there (a comment saying "write main.go", a prompt answered).
 * The API key is read from the variable CLOUDPLATFORM_README_API_KEY, never on a command line.
 */
export function readerScript(block: CodeBlock, values: ReaderValues, steps: Record<string, string> = {}): string {
  const lines = block.text.split("\n").map((line) => steps[line.trim()] ?? line);
  const replaced = lines
    .join("\n")
    .replaceAll("/path/to/pulumi-cloudplatform", values.repository)
    .replaceAll("https://api.example-platform.com", values.baseUrl)
    .replaceAll("https://s3.example-platform.com", values.s3Url)
    .replaceAll("cloudplatform:apiKey cp-…", 'cloudplatform:apiKey "$CLOUDPLATFORM_README_API_KEY"');
  if (/cp-…|example-platform|\/path\/to\//.test(replaced)) {
    throw new Error(`a placeholder of the README is not replaced:\n${replaced}`);
  }
  return `set -euo pipefail\n${replaced}`;
}
