// `node scripts/check-tarballs.mts <tarball>...`: fails when a tarball lacks the repository's
// LICENSE at its root or ships an install-time script (scripts/lib/tarball-check.mts says why).
// Run by scripts/check-package.sh on each tarball the repository ships.
import path from "node:path";
import { checkTarball } from "./lib/tarball-check.mts";

const licenseFile = path.resolve(import.meta.dirname, "..", "LICENSE");
const tarballs = process.argv.slice(2);
if (tarballs.length === 0) {
  process.stderr.write("usage: node scripts/check-tarballs.mts <tarball>...\n");
  process.exit(2);
}
const problems = (await Promise.all(tarballs.map((tarball) => checkTarball(tarball, licenseFile)))).flat();
for (const problem of problems) process.stderr.write(`[check-tarballs] ${problem}\n`);
if (problems.length > 0) process.exit(1);
process.stderr.write(`[check-tarballs] ${tarballs.length} tarball(s): LICENSE present, no install-time script\n`);
