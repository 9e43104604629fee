// `npm test`'s first check: which Debian tools the tests need are missing, and the one command that
// installs them. Outside CI the tests that need a missing tool are skipped (and listed at the end);
// under CI=true a missing tool fails the run, because CI must test everything. Prints the probe
// result as JSON on stdout for test.sh to hand to the test workers.
import { hasTool, installCommand, isCI, missingTools, toolNames } from "../test/support/tools.mts";

const missing = missingTools();
if (missing.length === 0) {
  console.error(`    all present: ${toolNames.join(", ")}`);
} else if (isCI()) {
  console.error(
    `error: missing Debian tools: ${missing.join(", ")}; CI runs every test. Install them: ${installCommand(missing)}`,
  );
  process.exit(1);
} else {
  console.error(
    `    missing Debian tools: ${missing.join(", ")}: the tests that need them are skipped (listed at the end).`,
  );
  console.error(`    To run every test, install them: ${installCommand(missing)}`);
}
console.log(JSON.stringify(Object.fromEntries(toolNames.map((tool) => [tool, hasTool(tool)]))));
