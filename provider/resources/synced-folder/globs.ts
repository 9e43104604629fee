/**
 * A SyncedFolder's `include` and `exclude` patterns, as .gitignore-like globs over the files'
 * paths relative to the folder (always with `/`): `*` is any run of characters within a name, `**`
 * any number of folders, `?` one character, `[abc]` one of a set, `{a,b}` either. A pattern without
 * a `/` is matched against the file's name in every folder (`*.map`, `.DS_Store`); one with a `/`
 * against the whole path from the folder's root (`drafts/**`, `img/*.png`; a leading `/` is
 * dropped).
 */

export interface Matcher {
  (path: string): boolean;
}

/** The problem with `pattern`, or undefined when it compiles. */
export function globProblem(pattern: string): string | undefined {
  if (pattern.trim() === "") return "is empty";
  try {
    globRegex(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Whether a path matches any of `patterns`. */
export function anyOf(patterns: readonly string[]): Matcher {
  const compiled = patterns.map((p) => ({ regex: globRegex(p), byName: !p.replace(/^\//, "").includes("/") }));
  return (path) => {
    const name = path.slice(path.lastIndexOf("/") + 1);
    return compiled.some(({ regex, byName }) => regex.test(byName ? name : path));
  };
}

/** Which files of the folder are synced: those `include` names (all when empty), less those `exclude` names. */
export function fileFilter(include: readonly string[], exclude: readonly string[]): Matcher {
  const included = include.length === 0 ? () => true : anyOf(include);
  const excluded = exclude.length === 0 ? () => false : anyOf(exclude);
  return (path) => included(path) && !excluded(path);
}

const special = /[.+^$()|\\]/;

export function globRegex(pattern: string): RegExp {
  const glob = pattern.replace(/^\//, "");
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        // `**/` matches no folder or several; a trailing `**` everything below.
        const slash = glob[i + 2] === "/";
        out += slash ? "(?:.*/)?" : ".*";
        i += slash ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[") {
      const end = glob.indexOf("]", i + 2);
      if (end < 0) throw new Error(`has a "[" without its "]"`);
      const body = glob
        .slice(i + 1, end)
        .replace(/^!/, "^")
        .replace(/\\/g, "\\\\");
      out += `[${body}]`;
      i = end;
    } else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) {
      out += "|";
    } else {
      out += special.test(c) ? `\\${c}` : c;
    }
  }
  if (braces > 0) throw new Error(`has a "{" without its "}"`);
  return new RegExp(`^${out}$`);
}
