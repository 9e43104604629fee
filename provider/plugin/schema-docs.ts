/**
 * The descriptions of the schema's resources and functions, in the convention Pulumi's registry
 * docs are generated from: the summary (the field table's or the lookup's text), then the examples,
 * then, for a resource that can be imported, how:
 *
 *     <summary>
 *     {{% examples %}}
 *     ## Example Usage
 *     {{% example %}}
 *     ### <title>
 *     ```typescript … ```  ```python … ```  ```go … ```  ```yaml … ```
 *     {{% /example %}}
 *     {{% /examples %}}
 *     ## Import
 *     <import.md>
 *
 * Each SDK generator keeps the blocks of its own language (and `sh`) in the SDK's doc comments.
 * The examples are files, not strings: `docs/examples/<name>/` (`<name>` the resource's type or the
 * function's name in kebab-case) holds `README.md` (`# <title>`, then any text before the code),
 * one program per language and, for a resource that can be imported, `import.md`. scripts/check-examples.sh
 * compiles the programs against the generated SDKs, and the tests hold every resource and function
 * of the schema to having them (test/support/schema-docs.ts). They are read from the installed
 * package when the schema is built: the plugin tarball carries them (scripts/plugin-pack.mts).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** The program of each language in an example's folder, and its code fence's language. */
export const exampleFiles = [
  { language: "typescript", file: "index.ts" },
  { language: "python", file: "__main__.py" },
  { language: "go", file: "main.go" },
  { language: "yaml", file: "Pulumi.yaml" },
] as const;

/** `BucketCredential` → `bucket-credential`, `getDnsZones` → `get-dns-zones`: an example's folder. */
export const kebab = (name: string): string => name.replace(/(?<=[a-z0-9])([A-Z])/g, "-$1").toLowerCase();

/** docs/examples of the package this code runs from (a checkout, the npm package, the plugin tarball). */
export function examplesRoot(): string {
  const manifest = createRequire(__filename).resolve("pulumi-cloudplatform/package.json");
  return path.join(path.dirname(manifest), "docs", "examples");
}

/** A file's text without its trailing newlines; undefined when there is no such file. */
function text(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8").replace(/\s+$/, "");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * The example of `docs/examples/<folder>`: its title and text from README.md, then the programs
 * there are. What is missing is left out, for the tests to name: a plugin whose package lacks an
 * example still serves its schema.
 */
function example(dir: string): string | undefined {
  const programs = exampleFiles.flatMap(({ language, file }) => {
    const code = text(path.join(dir, file));
    return code === undefined ? [] : [`\`\`\`${language}\n${code}\n\`\`\``];
  });
  if (programs.length === 0) return undefined;
  const readme = text(path.join(dir, "README.md")) ?? "";
  const [first = "", ...rest] = readme.split("\n");
  const title = /^# (.+)$/.exec(first)?.[1];
  const intro = rest.join("\n").trim();
  return [
    "{{% example %}}",
    ...(title === undefined ? [] : [`### ${title}`, ""]),
    ...(intro === "" ? [] : [intro, ""]),
    programs.join("\n\n"),
    "{{% /example %}}",
  ].join("\n");
}

/**
 * `summary` followed by the examples of `name` (a resource's type or a function's name) and its
 * import section, from the folder of that name under `root`.
 */
export function describedWithExamples(summary: string, name: string, root: string): string {
  const dir = path.join(root, kebab(name));
  const shown = example(dir);
  const importing = text(path.join(dir, "import.md"));
  return [
    summary,
    ...(shown === undefined
      ? []
      : [["{{% examples %}}", "## Example Usage", "", shown, "{{% /examples %}}"].join("\n")]),
    ...(importing === undefined ? [] : [`## Import\n\n${importing}`]),
  ].join("\n\n");
}
