#!/usr/bin/env node
/**
 * `pulumi-resource-cloudplatform` (package.json `bin`, and the entry the plugin tarball's launcher
 * script runs): the executable provider, started only on a Node.js the provider's dependencies
 * support. The engine runs it as `pulumi-resource-cloudplatform <engine address>` from PATH or from
 * its plugin cache.
 *
 * An older Node fails inside @pulumi/pulumi or undici with a syntax or API error that says nothing
 * about the cause, so this file checks first and loads the provider only afterwards. It therefore
 * imports nothing at the top and uses no syntax newer than what Node 14 parses.
 */

/** Keep equal to package.json `engines.node` (a unit test compares them). */
export const minimumNodeVersion = "22.19.0";

function parts(version: string): number[] {
  return version
    .replace(/^v/, "")
    .split(/[.+-]/)
    .slice(0, 3)
    .map((p) => Number.parseInt(p, 10) || 0);
}

/** What failed and what to do, when this Node cannot run the provider; undefined when it can. */
export function nodeVersionParts(version: string, execPath: string): { what: string; todo: string } | undefined {
  const have = parts(version);
  const need = parts(minimumNodeVersion);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > (need[i] ?? 0)) return undefined;
    if ((have[i] ?? 0) < (need[i] ?? 0)) {
      return {
        what:
          `pulumi-resource-cloudplatform: Node.js ${version.replace(/^v?/, "v")} (${execPath}) is too old: ` +
          `the provider needs Node.js >= ${minimumNodeVersion}`,
        todo:
          "Install Node.js 22 or newer (24 LTS recommended) and put its bin folder first on the PATH " +
          "the Pulumi CLI runs with.",
      };
    }
  }
  return undefined;
}

/**
 * Why this Node cannot run the provider, or undefined when it can. The shape of every provider
 * error (`<what failed> (<code>). <what to do>`, errors.ts), written here by hand: see above.
 */
export function nodeVersionProblem(version: string, execPath: string): string | undefined {
  const problem = nodeVersionParts(version, execPath);
  return problem && `${problem.what} (CLOUDPLATFORM_NODE_UNSUPPORTED). ${problem.todo}`;
}

if (require.main === module) {
  const problem = nodeVersionProblem(process.versions.node, process.execPath);
  if (problem !== undefined) {
    process.stderr.write(`${problem}\n`);
    process.exit(1);
  }
  // Loaded only now: a static import would be hoisted above the check. The compile cache first, so
  // that it covers @pulumi/pulumi and the rest of what main loads.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- after the check, for its effect
  require("../compile-cache.js");
  void import("./main.js");
}
