#!/usr/bin/env node
/**
 * `cloudplatform-import` (package.json `bin`): brings an existing project under Pulumi in one
 * command. It lists every DNS zone, bucket and bucket credential of the project through the
 * provider's own list calls, leaves out what the stack manages already, names the rest (names.ts)
 * and writes an import file for `pulumi import --file` (the plugin: Go, YAML, Python, …) and a
 * program file for TypeScript programs on the dynamic SDK (files.ts). Given the stack a project
 * moves from (`--from`), it brings in only what that stack holds, and `--release` then removes those
 * objects from the old stack's state, nothing deleted on the platform. It writes nothing on the
 * platform, and no secret anywhere. README, "Bring an existing project under Pulumi".
 */
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { ApiClient, closePools } from "../client.js";
import { resolveSettings } from "../config.js";
import { pulumi, runCommand, stackConfig, stackExport, type StackRef } from "../pulumi-cli.js";
import { listCredentials } from "../platform/bucket-credential/api.js";
import { listBuckets } from "../platform/bucket/api.js";
import { listZones } from "../platform/dns-zone/api.js";
import { discover, type Progress } from "./discover.js";
import { declaredIn, importBatches, importFileText, programFileText, type Declared } from "./files.js";
import { yamlReadsAsOtherType } from "./names.js";
import { plan, plural, summary, type Item, type Plan } from "./plan.js";
import { carrySecrets, releasePlan } from "./release.js";
import { emptyHoldings, readHoldings, type StackHoldings } from "./stack.js";

const usage = `Usage: cloudplatform-import [--stack <name>] [--cwd <dir>] [--out-dir <dir>] [--dry-run]
       cloudplatform-import --from <old stack> [--from-cwd <dir>] [--stack <name>] [--release] [--dry-run]

Finds every DNS zone, bucket and bucket credential of the project that the stack does not manage yet,
and writes what brings them under Pulumi, changing nothing on the platform:

  cloudplatform-import.json  for \`pulumi import --file cloudplatform-import.json\` (the plugin: Go, YAML,
                             Python, ...), which writes the program's declarations
  cloudplatform-imported.ts  for TypeScript programs on the dynamic SDK: use its \`imported\` from the
                             program, then \`pulumi up\`

Run it again at any time: it finds only what was made since. cloudplatform-imported.ts keeps what
earlier runs declared and gets the new objects added; the import files list everything the stack does
not manage yet. The project API key is never imported.

  --stack <name>     the stack the objects go into; what it manages is left out (default: the selected
                     stack of the program in --cwd; none outside a Pulumi project)
  --cwd <dir>        that program's directory (default: the current one)
  --out-dir <dir>    where the two files go (default: --cwd)
  --dry-run          print what would be imported, write nothing
  --from <stack>     move a stack between the dynamic SDK and the plugin: bring in what <stack> holds
  --from-cwd <dir>   the directory of <stack>'s program (default: --cwd)
  --release          once --stack holds everything <stack> held: remove it from <stack>'s state
                     (\`pulumi state delete\`; nothing is deleted on the platform), the secrets <stack>
                     knows carried over to --stack first; with --dry-run, only say what it would do
  --concurrency <n>  buckets whose credentials are listed at once (default 8)
  --help

Settings are read as the provider reads them: the stack's cloudplatform:* config, then the
CLOUDPLATFORM_* environment variables.`;

interface Options {
  readonly stack: string | undefined;
  readonly cwd: string;
  readonly outDir: string;
  readonly dryRun: boolean;
  readonly from: string | undefined;
  readonly fromCwd: string;
  readonly release: boolean;
  readonly concurrency: number;
}

function options(argv: readonly string[]): Options | "help" {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      stack: { type: "string", short: "s" },
      cwd: { type: "string" },
      "out-dir": { type: "string" },
      "dry-run": { type: "boolean" },
      from: { type: "string" },
      "from-cwd": { type: "string" },
      release: { type: "boolean" },
      concurrency: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help === true) return "help";
  const cwd = path.resolve(values.cwd ?? process.cwd());
  const concurrency = Number(values.concurrency ?? 8);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error("--concurrency takes a whole number ≥ 1");
  if (values.release === true && values.from === undefined) throw new Error("--release needs --from <old stack>");
  return {
    stack: values.stack,
    cwd,
    outDir: path.resolve(cwd, values["out-dir"] ?? "."),
    dryRun: values["dry-run"] === true,
    from: values.from,
    fromCwd: path.resolve(cwd, values["from-cwd"] ?? "."),
    release: values.release === true,
    concurrency,
  };
}

export const importFileName = "cloudplatform-import.json";
/** The second import file, when some zones must be imported after the buckets named like them (files.ts). */
export const laterImportFileName = "cloudplatform-import-2.json";
/**
 * Not `cloudplatform-import.ts`: a program's `import "./cloudplatform-import"` becomes a `require`,
 * which Node resolves to cloudplatform-import.json (.js, .json, .node before ts-node's .ts), and the
 * program then declares nothing at all. No file this command writes, nor a folder, has this base name.
 */
export const programFileName = "cloudplatform-imported.ts";
const programModule = path.basename(programFileName, ".ts");

/** What Node would load, for a require of ./cloudplatform-imported, before the .ts file, if present. */
function shadowing(dir: string): string[] {
  return [".js", ".json", ".node", ""].map((ext) => path.join(dir, programModule + ext)).filter((f) => existsSync(f));
}

function withDeclared(h: StackHoldings, d: Declared): StackHoldings {
  return {
    ...h,
    zones: new Set([...h.zones, ...d.zones]),
    buckets: new Set([...h.buckets, ...d.buckets]),
    credentials: new Set([...h.credentials, ...d.credentials]),
    names: new Set([...h.names, ...d.names]),
  };
}

const hasProject = (dir: string): boolean =>
  existsSync(path.join(dir, "Pulumi.yaml")) || existsSync(path.join(dir, "Pulumi.yml"));

/** The stack's name as the CLI shows it (the selected one when none is given). */
async function nameOf(ref: StackRef): Promise<string> {
  return ref.stack ?? (await pulumi(ref, ["stack", "--show-name"])).trim();
}

/** `+ Bucket mediaLogs  "media-logs", Archive (bkt_…)` */
function describe(item: Item): string {
  switch (item.kind) {
    case "DnsZone":
      return `+ DnsZone ${item.name}  "${item.zoneName}" (${item.id})`;
    case "Bucket":
      return `+ Bucket ${item.name}  "${item.bucketName}"${item.storageClass === undefined ? "" : `, ${item.storageClass}`} (${item.id})`;
    case "BucketCredential":
      return (
        `+ BucketCredential ${item.name}  ${item.accessKeyId} of "${item.bucketName}"` +
        (item.active === false ? ", deactivated" : "")
      );
  }
}

/** Progress lines on a large project, at most one a second (and the last). */
function progressReporter(err: (line: string) => void): (p: Progress) => void {
  let last = 0;
  return (p) => {
    const now = Date.now();
    const done = p.bucketsListed === p.buckets;
    if (!done && now - last < 1000) return;
    last = now;
    err(
      `cloudplatform-import: listed ${plural(p.zones, "zone", "zones")} and ${plural(p.buckets, "bucket", "buckets")}; ` +
        `credentials of ${p.bucketsListed} of them (${plural(p.credentials, "credential", "credentials")})` +
        (done ? "." : "…"),
    );
  };
}

function nextSteps(p: Plan, o: Options, files: { imports: string[]; program: string }, stack: string | undefined) {
  const stackFlag = stack === undefined ? "" : ` --stack ${stack}`;
  const imports = files.imports.map(
    (file, i) =>
      `  ${i === 0 ? "with the plugin (Go, YAML, Python, …):" : "                             and then:"}  ` +
      `pulumi import${stackFlag} --file ${file} --protect=false --out <file>`,
  );
  const lines = [
    `wrote ${[...files.imports, files.program].join(", ")}. Next, in the program's directory:`,
    ...imports,
    "                                          and add the declarations it writes to the program;",
    `  TypeScript on the dynamic SDK:          in index.ts, import { imported } from "./${programModule}";
                                          and export const importedObjects = imported.length; then pulumi up${stackFlag};`,
    `  then pulumi preview${stackFlag} --expect-no-changes.`,
  ];
  if (o.from !== undefined) {
    lines.push(
      `Then leave stack ${o.from} without them (nothing is deleted on the platform): cloudplatform-import --from ${o.from}` +
        `${o.fromCwd === o.cwd ? "" : ` --from-cwd ${o.fromCwd}`}${stackFlag} --release`,
    );
  }
  if (p.items.some((i) => i.kind === "BucketCredential")) {
    lines.push(
      "Credentials are taken over with their secret unknown to Pulumi (secretKnown: false): rotate one with " +
        "rotateWhenChanged when its users are ready for a new secret.",
    );
  }
  return lines;
}

async function release(o: Options, target: StackRef, source: StackRef, out: (line: string) => void): Promise<number> {
  const targetName = await nameOf(target);
  const released = releasePlan(readHoldings(await stackExport(source)), readHoldings(await stackExport(target)));
  if (released.missing.length > 0) {
    out(
      `cloudplatform-import: stack ${targetName} does not hold ${released.missing.length} object(s) of stack ${o.from} ` +
        `yet (${released.missing
          .slice(0, 5)
          .map((r) => `${r.kind} "${r.name}" ${r.id}`)
          .join(", ")}` +
        `${released.missing.length > 5 ? ", …" : ""}): import them first (run this without --release), or ` +
        `\`pulumi refresh\` stack ${o.from} if they are gone from the platform. Nothing was changed.`,
    );
    return 1;
  }
  for (const note of released.notes) out(`  note: ${note}`);
  if (released.urns.length === 0) {
    out(`cloudplatform-import: stack ${o.from} holds no zone, bucket or credential; nothing to release.`);
    return 0;
  }
  const command = ["state", "delete", ...released.urns, "--yes", ...(released.protectedCount > 0 ? ["--force"] : [])];
  if (o.dryRun) {
    out(
      `dry run: would carry the secrets stack ${o.from} knows to stack ${targetName}, then remove ` +
        `${released.urns.length} resource(s) from stack ${o.from}'s state:`,
    );
    out(`  pulumi ${command.map((a) => (a.startsWith("urn:") ? `'${a}'` : a)).join(" ")} --stack ${o.from}`);
    return 0;
  }
  if (released.protectedCount > 0) {
    out(
      `  note: ${released.protectedCount} of them are protected in stack ${o.from}: removed from its state all the ` +
        "same (protection keeps an object from being deleted, and none is).",
    );
  }
  const carried = await carrySecrets(source, target);
  if (carried > 0)
    out(`  carried ${carried} secret(s) stack ${o.from} knows to stack ${targetName} (secretKnown: true).`);
  await pulumi(source, command);
  out(
    `cloudplatform-import: removed ${released.urns.length} resource(s) from stack ${o.from}'s state; stack ` +
      `${targetName} manages them. Nothing was deleted on the platform: \`pulumi destroy\` of stack ${o.from} now ` +
      "deletes none of them.",
  );
  return 0;
}

/**
 * The engine's YAML code generation writes a name unquoted (`name: 0x1f`), which YAML then reads as
 * a number, a boolean or null, and the preview fails: the command cannot change what the engine
 * writes, so it says which lines to quote.
 */
function yamlNotes(items: readonly Item[]): string[] {
  const names = items.flatMap((i) => (i.kind === "DnsZone" ? [i.zoneName] : i.kind === "Bucket" ? [i.bucketName] : []));
  const odd = names.filter(yamlReadsAsOtherType);
  if (odd.length === 0) return [];
  return [
    `  note: YAML reads ${plural(odd.length, "name", "names")} as a number, boolean or null, and \`pulumi import\` ` +
      "writes them unquoted: in the YAML it writes (--out), quote each before adding it to Pulumi.yaml:",
    ...odd.map((n) => `    name: ${n}  →  name: ${JSON.stringify(n)}`),
  ];
}

export async function main(
  argv: readonly string[],
  out: (line: string) => void,
  err: (line: string) => void = out,
): Promise<number> {
  const o = options(argv);
  if (o === "help") {
    out(usage);
    return 0;
  }
  const target: StackRef | undefined =
    o.stack !== undefined || hasProject(o.cwd) ? { stack: o.stack, cwd: o.cwd } : undefined;
  const source: StackRef | undefined = o.from === undefined ? undefined : { stack: o.from, cwd: o.fromCwd };
  if (o.release) {
    if (target === undefined) throw new Error("--release needs the stack the objects went into: --stack <name>");
    return release(o, target, source as StackRef, out);
  }

  const config = await ((target ?? source) ? stackConfig((target ?? source) as StackRef) : Promise.resolve({}));
  const settings = resolveSettings(
    (key) => (config as Record<string, string>)[key],
    (m) => err(`warning: ${m}`),
  );
  const client = new ApiClient(settings, { onRetry: (m) => err(`warning: ${m}`) });
  const targetName = target === undefined ? undefined : await nameOf(target);
  const program = path.join(o.outDir, programFileName);
  const shadows = shadowing(o.outDir);
  if (shadows.length > 0) {
    throw new Error(
      `${shadows.join(", ")} would be loaded instead of ${programFileName} by the program's ` +
        `\`import "./${programModule}"\` (Node resolves .js, .json, .node and a folder before .ts): rename or ` +
        "remove it, then run this again. Nothing was written.",
    );
  }
  // What an earlier run wrote stays, and is not written twice (files.ts, programFileText).
  const previous = existsSync(program) ? await readFile(program, "utf8") : undefined;
  const declared = previous === undefined ? undefined : declaredIn(previous);
  const targetHoldings: StackHoldings = target === undefined ? emptyHoldings : readHoldings(await stackExport(target));
  const sourceHoldings = source === undefined ? undefined : readHoldings(await stackExport(source));

  // Moving: only the buckets whose credentials the old stack holds need their credentials listed.
  const sourceBuckets =
    sourceHoldings === undefined
      ? undefined
      : new Set([...sourceHoldings.buckets, ...sourceHoldings.resources.flatMap((r) => r.bucketId ?? [])]);
  const inventory = await discover(
    {
      zones: () => listZones(client),
      buckets: () => listBuckets(client),
      credentials: (bucketId) => listCredentials(client, bucketId),
    },
    {
      concurrency: o.concurrency,
      ...(sourceBuckets === undefined ? {} : { credentialsOf: (b) => sourceBuckets.has(b.id) }),
      onProgress: progressReporter(err),
    },
  );
  const moving = sourceHoldings === undefined ? {} : { source: { name: o.from as string, holdings: sourceHoldings } };
  // The import files: everything the stack does not hold, whatever the program file declares (a
  // YAML or Go user may have one lying about, and must not lose objects to it).
  const p = plan(inventory, { target: targetHoldings, ...moving });
  // The program file: what neither the stack nor the file's earlier declarations hold, named apart from both.
  const added =
    declared === undefined ? p : plan(inventory, { target: withDeclared(targetHoldings, declared), ...moving });

  for (const s of p.skipped) out(`  skipped ${s.what}: ${s.why}. Instead: ${s.todo}.`);
  for (const line of yamlNotes(p.items)) out(line);
  if (o.dryRun) {
    for (const item of p.items) out(`  ${describe(item)}`);
    out(summary(p, targetName));
    out("dry run: nothing was written.");
    return 0;
  }
  out(summary(p, targetName));
  const batches = p.items.length === 0 ? [] : importBatches(p.items);
  const importFiles = [importFileName, laterImportFileName].map((f) => path.join(o.outDir, f));
  // An import file of an earlier run lists what the stack may hold by now: gone, so that importing
  // it again cannot be mistaken for importing what is new.
  for (const stale of importFiles.slice(batches.length)) await rm(stale, { force: true });
  if (p.items.length === 0) {
    out(`nothing new to import${targetName === undefined ? "" : ` into stack ${targetName}`}; no file written.`);
    return 0;
  }
  await mkdir(o.outDir, { recursive: true });
  const imports = importFiles.slice(0, batches.length);
  for (const [i, file] of imports.entries()) await writeFile(file, importFileText(batches[i] ?? []));
  if (added.items.length > 0) await writeFile(program, programFileText(added, settings.baseUrl, targetName, previous));
  if (declared !== undefined) {
    out(
      `  note: kept the ${plural(declared.names.size, "declaration", "declarations")} earlier runs wrote to ` +
        `${path.relative(o.cwd, program)}, ${added.items.length === 0 ? "and added none: it declares every object above" : `and added ${added.items.length}`}.`,
    );
  }
  const shown = { imports: imports.map((f) => path.relative(o.cwd, f)), program: path.relative(o.cwd, program) };
  if (batches.length > 1) {
    out(
      `  note: ${batches[1]?.length} zone(s) share a name with a bucket, so they are in ${laterImportFileName}, ` +
        "imported after the first file: in one import, the engine's code generation would have each refer to " +
        "the other, and then refer to nothing at all (every credential's bucketId written as a plain id).",
    );
  }
  for (const line of nextSteps(p, o, shown, targetName)) out(line);
  return 0;
}

if (require.main === module) runCommand("cloudplatform-import", main, closePools);
