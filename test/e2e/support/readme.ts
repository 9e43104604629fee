// The README's per-language sections as a reader uses them: its code blocks, and its shell steps
// run with the reader's values (paths, addresses, the API key) put in place of the placeholders.
import { expect } from "vitest";
import { recordUse, sectionBlocks } from "../../support/doc-blocks.mts";

export interface CodeBlock {
  readonly language: string;
  readonly text: string;
}

/**
 * The fenced code blocks with a language of the section `### <heading>` (or of another `level`) of a page of the
 * repository, in order. The test that reads them runs them as a reader would: they count as run by
 * it in the documentation's coverage (test/support/doc-blocks.mts).
 */
export async function readmeBlocks(heading: string, file = "README.md", level = 3): Promise<CodeBlock[]> {
  const blocks = sectionBlocks(file, heading, level).filter((block) => block.language !== "");
  recordUse(blocks, "ran", expect.getState().testPath ?? "an end-to-end test");
  return Promise.resolve(blocks);
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
