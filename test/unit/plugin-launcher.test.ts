// The checks behind the plugin's executable and tarball: the Node version the launcher accepts (the
// refusal itself, in a real process, is in test/e2e/plugin-install.test.ts), and the production
// lockfile the tarball is installed from.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { NodeUnsupportedError } from "../../provider/errors.js";
import { minimumNodeVersion, nodeVersionParts, nodeVersionProblem } from "../../provider/plugin/launcher.js";

const repoRoot = path.resolve(__dirname, "..", "..");

describe("launcher: nodeVersionProblem", () => {
  it("accepts the minimum and anything newer", () => {
    for (const version of ["22.19.0", "22.19.1", "22.20.0", "23.0.0", "24.11.1", "v24.0.0", "25.0.0-pre"])
      expect(nodeVersionProblem(version, "/usr/bin/node"), version).toBeUndefined();
  });

  it("refuses anything older, naming the Node found, the minimum and what to do", () => {
    for (const version of ["22.18.9", "22.0.0", "20.19.2", "18.20.0", "v16.0.0"]) {
      const problem = nodeVersionProblem(version, "/opt/node/bin/node");
      expect(problem, version).toContain(`Node.js v${version.replace(/^v/, "")} (/opt/node/bin/node) is too old`);
      expect(problem).toContain("CLOUDPLATFORM_NODE_UNSUPPORTED");
      expect(problem).toContain("needs Node.js >= 22.19.0");
      expect(problem).toContain("put its bin folder first on the PATH");
    }
  });

  it("writes the message every provider error has, as NodeUnsupportedError would", () => {
    const parts = nodeVersionParts("20.19.2", "/usr/bin/node");
    expect(parts).toBeDefined();
    expect(nodeVersionProblem("20.19.2", "/usr/bin/node")).toBe(
      new NodeUnsupportedError(parts!.what, parts!.todo).message,
    );
  });

  it("asks for the Node version package.json's engines names", () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, "package.json"), "utf8")) as {
      engines: { node: string };
    };
    const [major, minor = "0", patch = "0"] = pkg.engines.node.replace(/^>=\s*/, "").split(".");
    expect(minimumNodeVersion).toBe(`${major}.${minor}.${patch}`);
  });
});
