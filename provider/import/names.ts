/**
 * The names `cloudplatform-import` gives the objects it brings in: each is the resource's logical
 * name and the variable that holds it in the generated code, so it must be an identifier in every
 * language Pulumi generates code for (TypeScript, Go, Python, C#, Java, YAML), the same on every
 * run for the same project, and read as the platform's own name:
 *
 *   bucket `media-logs`                      → `mediaLogs`
 *   zone `example.com`                       → `exampleComZone`
 *   credential `CPAK…L28M` of `media-logs`   → `mediaLogsKeyL28m`
 *
 * Words are split at anything but a letter or digit and joined in camelCase. A name that would
 * start with a digit, or be a word some language reserves (or that generated code uses itself),
 * gets its kind in front (`3d-assets` → `bucket3dAssets`, `import` → `bucketImport`). A credential is
 * named after its bucket's name and the end of its access key id, as few characters as tell the
 * bucket's credentials apart (at least 4). Two objects that would get the same name (`media-logs`
 * and `media.logs`, or a name the stack already holds) are told apart by a number, in the order of
 * their platform names.
 */

/** Words reserved by one of the languages, or used by the code Pulumi and this command generate. */
const reserved = new Set(
  [
    // TypeScript and JavaScript
    "abstract any arguments as async await boolean break case catch class const constructor continue debugger",
    "declare default delete do else enum eval export extends false finally for from function get if implements",
    "import in infer instanceof interface is keyof let module namespace never new null number object of package",
    "private protected public readonly require return set static string super switch symbol this throw true try",
    "type typeof undefined unique unknown var void while with yield",
    // Go (keywords and the predeclared names generated code may use)
    "chan defer fallthrough func go goto map range select struct bool byte error int len make nil append cap",
    "close complex copy float32 float64 int32 int64 panic print println real recover rune uint uint32 uint64",
    // Python (keywords and soft keywords, builtins generated code may use)
    "and assert def del elif except global lambda nonlocal not or pass raise match case none dict list str",
    "tuple id input open range self",
    // C# and Java
    "base char checked decimal delegate double event explicit extern fixed float foreach implicit internal lock",
    "long operator out override params ref sbyte sealed short sizeof stackalloc throws transient ulong",
    "unchecked unsafe ushort using virtual volatile final native strictfp synchronized",
    // What generated programs name themselves
    "pulumi cloudplatform ctx err config opts args main fmt os sdk exports console process provider stack",
  ]
    .join(" ")
    .split(" "),
);

/** The words of a platform name: runs of letters and digits, lower case. */
function words(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
}

const capital = (word: string): string => word.charAt(0).toUpperCase() + word.slice(1);

/** `media-logs.v2` → `mediaLogsV2`; empty when the name has no letter or digit. */
export function camel(name: string): string {
  return words(name)
    .map((w, i) => (i === 0 ? w : capital(w)))
    .join("");
}

/** `base`, or `<kind><Base>` when `base` would start with a digit, is reserved, or is empty. */
function identifier(kind: string, base: string): string {
  if (base === "") return kind;
  return /^[0-9]/.test(base) || reserved.has(base.toLowerCase()) ? `${kind}${capital(base)}` : base;
}

/** Whether `name` is an identifier in every language the names must be valid in. */
export function isPortableIdentifier(name: string): boolean {
  return /^[a-z][A-Za-z0-9]*$/.test(name) && !reserved.has(name.toLowerCase());
}

export const bucketBase = (bucketName: string): string => identifier("bucket", camel(bucketName));

export function zoneBase(zoneName: string): string {
  const base = camel(zoneName);
  return /^[0-9]/.test(base) || base === "" ? `zone${capital(base)}` : `${base}Zone`;
}

/**
 * The end of each access key id, as few characters (at least 4) as tell `accessKeyIds` apart:
 * `CPAK3J5OCUDGLGU4L28M` → `L28m` (a capital, then lower case: it follows a word in camelCase).
 */
export function keySuffixes(accessKeyIds: readonly string[]): Map<string, string> {
  const alnum = (id: string) => id.replace(/[^A-Za-z0-9]/g, "");
  const longest = Math.max(4, ...accessKeyIds.map((id) => alnum(id).length));
  for (let length = 4; ; length++) {
    const ends = accessKeyIds.map((id) => alnum(id).slice(-length).toLowerCase());
    if (new Set(ends).size === ends.length || length >= longest) {
      return new Map(accessKeyIds.map((id, i) => [id, capital(ends[i] ?? "") || "X"]));
    }
  }
}

/**
 * Hands out names: each the one asked for when it is free, else the same with the first number
 * from 2 that is. `taken`: names used already (the stack's logical names), compared without case,
 * since some languages' generated code changes a name's case.
 */
export class NameAllocator {
  private readonly used = new Set<string>();

  constructor(taken: Iterable<string> = []) {
    for (const name of taken) this.used.add(name.toLowerCase());
  }

  take(base: string): string {
    let name = base;
    for (let n = 2; this.used.has(name.toLowerCase()); n++) name = `${base}${n}`;
    this.used.add(name.toLowerCase());
    return name;
  }
}

/**
 * Whether a YAML reader takes this plain (unquoted) scalar for something other than a string:
 * null (`~`, `null`), a boolean (YAML 1.2's `true`, 1.1's `yes`, `on`, `y`, …), an integer (`0x1f`,
 * `0o17`, `0b101`, `017`, `1_000`, 1.1's `1:30`) or a float (`1e3`, `.5`, `.inf`, `.nan`), or a date
 * (`2026-01-02`): the readers of YAML programs differ in which of these they apply, so any of them.
 */
export function yamlReadsAsOtherType(name: string): boolean {
  const s = name.toLowerCase();
  return (
    s === "" ||
    /^(~|null|true|false|yes|no|on|off|y|n)$/.test(s) ||
    /^[-+]?(0x[0-9a-f_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*(:[0-5]?[0-9])*)$/.test(s) ||
    /^[-+]?(\.[0-9_]+|[0-9][0-9_]*(\.[0-9_]*)?)(e[-+]?[0-9]+)?$/.test(s) ||
    /^[-+]?\.(inf|nan)$/.test(s) ||
    /^\d{4}-\d\d?-\d\d?([t ].*)?$/.test(s)
  );
}
