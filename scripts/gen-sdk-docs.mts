// `npm run gen:sdk-docs`: rewrites the TSDoc of the SDK's properties (sdk/*.ts `<Type>Args` and
// `<Type>` members) from the field tables (provider/resources/*/fields.ts), the one place that text
// is written (scripts/lib/sdk-docs.mts). `-- --check` writes nothing and fails when sdk/ is out of
// date; test/unit/sdk-fields.test.ts checks the same in `npm test`. The tables are read from the
// build (node runs the compiled provider), so this compiles the provider first.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { loadTables, sdkFiles } from "./lib/sdk-docs.mts";
import { repoRoot } from "./lib/paths.mts";

const args = process.argv.slice(2);
if (!(args.length === 0 || (args.length === 1 && args[0] === "--check"))) {
  process.stderr.write("usage: npm run gen:sdk-docs [-- --check]\n");
  process.exit(2);
}
const check = args.length === 1;
const say = (line: string) => process.stderr.write(`[gen-sdk-docs] ${line}\n`);

execFileSync(process.execPath, [path.join(repoRoot, "node_modules/typescript/bin/tsc"), "-b", "tsconfig.json"], {
  cwd: repoRoot,
  stdio: "inherit",
});
const tables = await loadTables(path.join(repoRoot, "bin/provider/resources"), ".js");
const stale = sdkFiles(path.join(repoRoot, "sdk"), tables).filter(({ text, generated }) => text !== generated);
for (const { file, generated } of stale) {
  if (check) say(`sdk/${file} is out of date with the field tables`);
  else writeFileSync(path.join(repoRoot, "sdk", file), generated);
}
if (check && stale.length > 0) {
  say("run `npm run gen:sdk-docs` and commit sdk/");
  process.exit(1);
}
say(check ? "sdk/ is up to date" : `${stale.length} file(s) of sdk/ rewritten from the field tables`);
