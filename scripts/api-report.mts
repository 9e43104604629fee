// `node scripts/api-report.mts check|update [--root <dir>]`: the public API report of every entry
// point of package.json `exports` (docs/public-api.md), made by API Extractor from the built
// declarations (bin/**/*.d.ts; run `npm run build` first). `check` fails when a report in api/ differs
// from the built surface, or when an entry point has no report or a report no entry point; `update`
// rewrites api/ to match. `--root` runs on another copy of the package (test/unit/api-report.test.ts).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  CompilerState,
  Extractor,
  ExtractorConfig,
  ExtractorLogLevel,
  type ExtractorMessage,
} from "@microsoft/api-extractor";
import { repoRoot } from "./lib/paths.mts";

interface Entry {
  /** The import path a user writes: `pulumi-cloudplatform/provider`. */
  readonly specifier: string;
  /** The report's name in api/, without `.api.md`. */
  readonly report: string;
  /** The entry's built declarations. */
  readonly types: string;
}

const usage = "usage: node scripts/api-report.mts check|update [--root <dir>]";
const [mode, ...rest] = process.argv.slice(2);
if ((mode !== "check" && mode !== "update") || !(rest.length === 0 || (rest.length === 2 && rest[0] === "--root"))) {
  process.stderr.write(`${usage}\n`);
  process.exit(2);
}
const root = path.resolve(rest[1] ?? repoRoot);
const reportDir = path.join(root, "api");
const say = (line: string) => process.stderr.write(`[api-report] ${line}\n`);

/** Each entry point of `exports` with declarations; a `*` pattern gives one entry per built file. */
function entries(): Entry[] {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, string | { types?: string }>;
  };
  const out: Entry[] = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string" || target.types === undefined) continue; // ./package.json
    const add = (sub: string, types: string) => {
      const specifier = path.posix.join(pkg.name, sub);
      out.push({ specifier, report: specifier.replaceAll("/", "-"), types: path.join(root, types) });
    };
    if (!subpath.includes("*")) {
      add(subpath, target.types);
      continue;
    }
    // Exports patterns match deeper paths too; the shims are one folder deep, so one level is read.
    const [before, after] = target.types.split("*") as [string, string];
    if (!existsSync(path.join(root, before))) continue; // not built: said below
    for (const file of readdirSync(path.join(root, before)).sort()) {
      if (file.endsWith(after)) add(subpath.replace("*", file.slice(0, -after.length)), before + file);
    }
  }
  return out;
}

const list = entries();
const unbuilt = list.filter((e) => !existsSync(e.types));
if (unbuilt.length > 0 || list.length === 0) {
  say(
    `no built declarations (${unbuilt.map((e) => path.relative(root, e.types)).join(", ") || "bin/"}): run npm run build first`,
  );
  process.exit(1);
}
if (mode === "update") mkdirSync(reportDir, { recursive: true });
const tempDir = mkdtempSync(path.join(tmpdir(), "api-report-"));
const base = ExtractorConfig.loadFile(path.join(root, "api-extractor.json"));
const configOf = (entry: Entry) =>
  ExtractorConfig.prepare({
    configObject: {
      ...base,
      projectFolder: root,
      mainEntryPointFilePath: entry.types,
      apiReport: { ...base.apiReport, enabled: true, reportFileName: entry.report, reportTempFolder: tempDir },
    },
    configObjectFullPath: path.join(root, "api-extractor.json"),
    packageJsonFullPath: path.join(root, "package.json"),
  });
const configs = list.map(configOf);
// One TypeScript program for every entry: each invocation would otherwise build its own (~1 s each).
const compilerState = CompilerState.create(configs[0]!, { additionalEntryPoints: list.map((e) => e.types) });

const problems: string[] = [];
// API Extractor's own notes on a report ("copy the file … to …") are replaced by one line that says
// which command to run; its diff of the report, warnings and errors are printed as it writes them.
const replacedNotes = new Set([
  "console-api-report-not-copied",
  "console-api-report-copied",
  "console-api-report-created",
]);
function onMessage(message: ExtractorMessage): void {
  const quiet = message.logLevel === ExtractorLogLevel.Info || message.logLevel === ExtractorLogLevel.Verbose;
  if (quiet || replacedNotes.has(message.messageId)) message.handled = true;
}

list.forEach((entry, i) => {
  const reportFile = path.join("api", `${entry.report}.api.md`);
  const result = Extractor.invoke(configs[i]!, {
    localBuild: mode === "update",
    compilerState,
    messageCallback: onMessage,
    printApiReportDiff: mode === "check",
  });
  if (!result.succeeded && !result.apiReportChanged) {
    problems.push(`${entry.specifier}: API Extractor failed (${result.errorCount} error(s), see above)`);
  } else if (result.apiReportChanged && mode === "update") {
    say(`${reportFile} updated (${entry.specifier})`);
  } else if (result.apiReportChanged && !existsSync(path.join(root, reportFile))) {
    problems.push(
      `the public API changed: ${entry.specifier} is a new entry point without a report; run npm run api:update`,
    );
  } else if (result.apiReportChanged) {
    problems.push(
      `the public API changed: review ${reportFile} and run npm run api:update (${entry.specifier}; docs/public-api.md)`,
    );
  }
});

// A report left behind by an entry point that is gone: the removal is a change of the surface too.
const expected = new Set(list.map((e) => `${e.report}.api.md`));
for (const file of (existsSync(reportDir) ? readdirSync(reportDir) : []).filter(
  (f) => f.endsWith(".api.md") && !expected.has(f),
)) {
  if (mode === "update") {
    unlinkSync(path.join(reportDir, file));
    say(`api/${file} removed: no entry point of package.json exports has it`);
  } else {
    problems.push(
      `the public API changed: api/${file} names an entry point package.json no longer exports; run npm run api:update`,
    );
  }
}
rmSync(tempDir, { recursive: true, force: true });

for (const problem of problems) say(problem);
if (problems.length > 0) process.exit(1);
say(`${list.length} entry points, ${mode === "check" ? "every report matches" : "reports written"}`);
