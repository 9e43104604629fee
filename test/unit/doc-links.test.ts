// Every internal link of the documentation resolves (issue 35): a reader who follows a relative link
// or an #anchor of README.md, docs/**/*.md, examples/*/README.md, emulator/README.md or
// bench/README.md lands on a file and a heading that exist. And the front page stays a front page
// (issue 38): at most 15 KB.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { anchors, checkLinks, docPages, links, repoRoot, slug } from "../support/doc-links.mts";

describe("GitHub's anchors", () => {
  it("slug a heading as GitHub does: lower case, punctuation dropped, spaces to hyphens, code and links as text", () => {
    expect(slug("Every Pulumi language: the plugin and its SDKs")).toBe(
      "every-pulumi-language-the-plugin-and-its-sdks",
    );
    expect(slug("Your team's Pulumi state on the platform")).toBe("your-teams-pulumi-state-on-the-platform");
    expect(slug("An `up` through the plugin (`npm run bench:plugin [-- <n> <rounds>]`)")).toBe(
      "an-up-through-the-plugin-npm-run-benchplugin----n-rounds",
    );
    expect(slug("[Console](x.md) of the emulator")).toBe("console-of-the-emulator");
    expect(slug("snake_case and Ünïcode 2.4")).toBe("snake_case-and-ünïcode-24");
  });

  it("number repeated headings and ignore headings inside code blocks", () => {
    const text = "# A\n\n## Setup\n\n```sh\n# Setup\n```\n\n## Setup\n\nTitle\n-----\n";
    expect([...anchors(text)]).toEqual(["a", "setup", "setup-1", "title"]);
  });

  it("take links outside code only, and reference definitions where a block starts", () => {
    const text =
      '[a](x.md) `[b](y.md)`\n```\n[c](z.md)\n```\n\n[d]: w.md#top\n![img](p.png "t")\n- item\n  [assumed]: not a link\n';
    expect(links(text).map((l) => l.target)).toEqual(["x.md", "w.md#top", "p.png"]);
  });
});

describe("the link checker", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "doc-links-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("finds a missing file, a missing anchor and a link out of the repository; passes the good ones", () => {
    mkdirSync(path.join(dir, "docs"));
    writeFileSync(path.join(dir, "docs", "page.md"), "# Page\n\n## The two commands\n");
    writeFileSync(
      path.join(dir, "README.md"),
      [
        "# Front",
        "[ok](docs/page.md#the-two-commands) [ok](#front) [ok](docs/) [web](https://example.com/x.md#nowhere)",
        "[gone](docs/gone.md) [no anchor](docs/page.md#the-three-commands) [own](#nowhere) [out](../x.md)",
      ].join("\n"),
    );
    const { broken, checked } = checkLinks(["README.md"], dir);
    expect(checked).toBe(7);
    expect(broken.map((b) => `${b.line} ${b.target}: ${b.why}`)).toEqual([
      "3 docs/gone.md: docs/gone.md does not exist",
      "3 docs/page.md#the-three-commands: docs/page.md has no heading with the anchor #the-three-commands",
      "3 #nowhere: README.md has no heading with the anchor #nowhere",
      "3 ../x.md: leaves the repository",
    ]);
  });
});

describe("the documentation's links", () => {
  const pages = docPages();

  it("cover the front page, every page of docs/, the examples', the emulator's and the benchmarks' READMEs", () => {
    for (const page of [
      "README.md",
      "docs/README.md",
      "docs/import.md",
      "docs/objects.md",
      "docs/examples/bucket/README.md",
    ]) {
      expect(pages).toContain(page);
    }
    expect(pages).toContain("examples/gitops/README.md");
    expect(pages).toContain("emulator/README.md");
    expect(pages).toContain("bench/README.md");
  });

  it("all resolve: every relative link to a file that exists, every anchor to a heading of its page", () => {
    const { broken, checked } = checkLinks(pages);
    console.log(`doc links: ${checked} internal links in ${pages.length} pages checked, ${broken.length} broken`);
    expect(broken.map((b) => `${b.file}:${b.line}: ${b.target}: ${b.why}`)).toEqual([]);
    expect(checked).toBeGreaterThan(100);
  });
});

describe("the front page", () => {
  it("is at most 15 KB: the rest of the documentation lives in docs/", () => {
    expect(statSync(path.join(repoRoot, "README.md")).size).toBeLessThanOrEqual(15 * 1024);
  });

  it("keeps the two commands as written", () => {
    const readme = readFileSync(path.join(repoRoot, "README.md"), "utf8");
    expect(readme).toContain("npm install && npm run demo");
    expect(readme).toMatch(/^npm test\b/m);
  });
});
