// The pages a reader follows, and the internal links between them: every relative link must name a
// file or folder of the repository, and every #anchor a heading of its page, slugged as GitHub slugs
// it. No network: links with a scheme (https:, mailto:) are not followed.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../../scripts/lib/paths.mts";

export { repoRoot };

/** Every Markdown file under `dir` (repository-relative), in every subfolder. */
function markdownUnder(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * The documentation pages: README.md, docs/**\/*.md, examples/*\/README.md, emulator/README.md, and
 * bench/README.md, where the figures the pages link to live.
 */
export function docPages(root = repoRoot): string[] {
  const examples = readdirSync(path.join(root, "examples"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(root, "examples", entry.name, "README.md")))
    .map((entry) => `examples/${entry.name}/README.md`);
  return [
    "README.md",
    ...markdownUnder(root, "docs"),
    "examples/README.md",
    ...examples.sort(),
    "emulator/README.md",
    "bench/README.md",
  ];
}

/** A Markdown text's lines outside fenced code blocks (front matter dropped), each with its number. */
export function proseLines(markdown: string): { line: number; text: string }[] {
  const lines = markdown.split("\n");
  const prose: { line: number; text: string }[] = [];
  let fence: string | undefined;
  let i = 0;
  // Front matter (the Registry's pages): its closing `---` is not a heading's underline.
  if (lines[0] === "---") {
    const end = lines.indexOf("---", 1);
    if (end > 0) i = end + 1;
  }
  for (; i < lines.length; i++) {
    const text = lines[i]!;
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(text)?.[1];
    if (fence !== undefined) {
      if (
        opening !== undefined &&
        opening[0] === fence[0] &&
        opening.length >= fence.length &&
        text.trim() === opening
      ) {
        fence = undefined;
      }
    } else if (opening !== undefined) {
      fence = opening;
    } else {
      prose.push({ line: i + 1, text });
    }
  }
  return prose;
}

/** The anchor GitHub gives a heading: its text as rendered, lower-cased, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  // Code spans are shown as written (`<n>` is text there, not a tag); links and HTML are rendered.
  return heading
    .split(/(`[^`]*`)/)
    .map((part, i) =>
      i % 2 === 1 ? part.slice(1, -1) : part.replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1").replace(/<[^>]*>/g, ""),
    )
    .join("")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown text: its headings' slugs (repeats numbered -1, -2, as GitHub does) and HTML ids. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  const add = (heading: string) => {
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  };
  const prose = proseLines(markdown);
  prose.forEach(({ line, text }, index) => {
    const atx = /^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(text);
    if (atx) return add(atx[1]!);
    const next = prose[index + 1];
    // A setext heading: a paragraph's line underlined by === or --- on the very next line.
    if (
      next?.line === line + 1 &&
      /^ {0,3}(=+|-+)\s*$/.test(next.text) &&
      text.trim() !== "" &&
      !/^\s*[|>*-]/.test(text)
    ) {
      add(text);
    }
    for (const m of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) found.add(m[1]!);
  });
  return found;
}

/** The link targets of a Markdown text outside code: inline links and images, and reference definitions. */
export function links(markdown: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  let previous = "";
  for (const { line, text } of proseLines(markdown)) {
    // A reference definition cannot interrupt a paragraph: only after a blank line (or a heading).
    const startsBlock = previous.trim() === "" || /^ {0,3}#/.test(previous);
    previous = text;
    const prose = text.replace(/(`+)[\s\S]*?\1/g, ""); // code spans hold no links
    for (const m of prose.matchAll(/\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ line, target: m[1]!.replace(/^<|>$/g, "") });
    }
    const definition = startsBlock ? /^ {0,3}\[[^\]]+\]:\s*(\S+)/.exec(prose) : null;
    if (definition) found.push({ line, target: definition[1]! });
  }
  return found;
}

export interface BrokenLink {
  readonly file: string;
  readonly line: number;
  readonly target: string;
  readonly why: string;
}

/** What the internal links of `files` (repository-relative) break, and how many internal links they hold. */
export function checkLinks(files: readonly string[], root = repoRoot): { broken: BrokenLink[]; checked: number } {
  const anchorsOf = new Map<string, Set<string>>();
  const anchorsIn = (file: string) => {
    let found = anchorsOf.get(file);
    if (found === undefined) anchorsOf.set(file, (found = anchors(readFileSync(path.join(root, file), "utf8"))));
    return found;
  };
  const broken: BrokenLink[] = [];
  let checked = 0;
  for (const file of files) {
    for (const { line, target } of links(readFileSync(path.join(root, file), "utf8"))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) continue; // https:, mailto:: not ours
      checked++;
      const hash = target.indexOf("#");
      const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
      const anchor = hash < 0 ? undefined : decodeURIComponent(target.slice(hash + 1));
      // GitHub resolves a path from the page's folder, or from the repository's root when it starts with /.
      const resolved =
        pathPart === ""
          ? file
          : path.normalize(pathPart.startsWith("/") ? pathPart.slice(1) : path.join(path.dirname(file), pathPart));
      const at = (why: string) => broken.push({ file, line, target, why });
      if (resolved.startsWith("..") || path.isAbsolute(resolved)) {
        at("leaves the repository");
      } else if (!existsSync(path.join(root, resolved))) {
        at(`${resolved} does not exist`);
      } else if (
        anchor !== undefined &&
        anchor !== "" &&
        resolved.endsWith(".md") &&
        !anchorsIn(resolved).has(anchor)
      ) {
        at(`${resolved} has no heading with the anchor #${anchor}`);
      }
    }
  }
  return { broken, checked };
}
