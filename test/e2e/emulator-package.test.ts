// The emulator as an infra repository installs it: `npm pack` in emulator/, the tarball installed
// into an empty folder outside this repository (npm resolves its dependencies; nothing of this
// repository's node_modules can be found), then `npx cloudplatform-emulator` there (emulator/README.md's
// block as written, the variables it exports from the JSON line checked), its JSON line
// read and its API called, over the management API and over S3 with the credential it hands out.
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordUse, sectionBlocks } from "../support/doc-blocks.mts";
import {
  npmInstall,
  npmPack,
  npxEmulator,
  plainPath,
  type EmulatorLine,
  type NpxEmulator,
} from "./support/packages.js";
import { repoRoot } from "./support/plugin-cli.js";
import { roundTrip } from "./support/s3.js";

const run = promisify(execFile);

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly bin: Record<string, string>;
  readonly dependencies: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

let scratch: string;
let tarball: string;
let infra: string;
const running: NpxEmulator[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "cloudplatform-emulator-package-"));
  tarball = await npmPack("emulator", scratch);
  infra = path.join(scratch, "infra");
  await mkdir(infra);
  await npmInstall(infra, [tarball], true);
});
afterAll(async () => {
  for (const emulator of running) await emulator.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/**
 * emulator/README.md's "Use it from a stack" block (## Run), run as written by bash in `cwd` (recorded as run),
 * then the three variables it exported printed. Its `npx … &` outlives the script, as in a user's
 * shell: a process group of its own (a terminal's), its stderr read as npxEmulator reads it.
 */
async function readmeEmulator(cwd: string): Promise<NpxEmulator> {
  const block = sectionBlocks("emulator/README.md", "Run", 2).find((b) => b.text.includes("> .emulator.json &"));
  if (block === undefined) throw new Error("emulator/README.md: its block that starts the emulator is gone");
  recordUse([block], "ran", expect.getState().testPath ?? "test/e2e/emulator-package.test.ts");
  const print = 'printf "%s\\n" "$CLOUDPLATFORM_BASE_URL" "$CLOUDPLATFORM_S3_URL" "$CLOUDPLATFORM_API_KEY"';
  const child = spawn("bash", ["-c", `set -euo pipefail\n${block.text}${print}\n`], {
    cwd,
    env: { HOME: process.env.HOME ?? cwd, PATH: plainPath() },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // stderr is shared with the emulator the block left running: it closes once that has exited.
  const gone = new Promise<void>((resolve) => child.stderr.once("close", () => resolve()));
  const stop = async (signal: NodeJS.Signals = "SIGINT") => {
    if (child.pid !== undefined) {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group has exited already
      }
    }
    await gone;
  };
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  try {
    if (code !== 0) throw new Error(`the block failed (exit ${code}):\n${block.text}\n${stdout}\n${stderr}`);
    const line = JSON.parse(await readFile(path.join(cwd, ".emulator.json"), "utf8")) as EmulatorLine;
    // What the block exported is what the JSON line says.
    expect(stdout.trim().split("\n")).toEqual([line.baseUrl, line.s3Url, line.apiKey]);
    return { line, child, stderr: () => stderr, stop };
  } catch (error) {
    await stop(); // what the block left running, whatever failed
    throw error;
  }
}

describe("the packed emulator", () => {
  it("ships its launcher, its compiled code with types, the console's page, its README, LICENSE and manifest; no sources, tests or maps", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball], { maxBuffer: 16 * 1024 * 1024 });
    const files = stdout.trim().split("\n");
    expect(files).toEqual(
      expect.arrayContaining([
        "package/package.json",
        "package/README.md",
        "package/LICENSE",
        "package/bin/cloudplatform-emulator.js",
        "package/dist/cli.js",
        "package/dist/index.js",
        "package/dist/index.d.ts",
        "package/src/console/static/index.html",
        "package/src/console/static/console.js",
      ]),
    );
    expect(
      files.filter(
        (f) =>
          !/^package\/(package\.json|README\.md|LICENSE|bin\/[^/]+\.js|dist\/.+\.(js|d\.ts)|src\/console\/static\/[^/]+)$/.test(
            f,
          ),
      ),
    ).toEqual([]);
  });

  it("is publishable, and installed it is a dev dependency of the infra repository with its command", async () => {
    const manifest = JSON.parse(
      await readFile(path.join(infra, "node_modules", "cloudplatform-emulator", "package.json"), "utf8"),
    ) as Manifest;
    expect(manifest.private).toBeUndefined();
    expect(manifest.bin).toEqual({ "cloudplatform-emulator": "bin/cloudplatform-emulator.js" });
    const own = JSON.parse(await readFile(path.join(infra, "package.json"), "utf8")) as Manifest;
    expect(Object.keys(own.devDependencies ?? {})).toEqual(["cloudplatform-emulator"]);
    expect(await readdir(path.join(infra, "node_modules", ".bin"))).toContain("cloudplatform-emulator");
  });

  it("declares exactly the packages its code loads (no root dev dependency needed, none unused)", async () => {
    const dist = path.join(infra, "node_modules", "cloudplatform-emulator", "dist");
    const manifest = JSON.parse(readFileSync(path.join(dist, "..", "package.json"), "utf8")) as Manifest;
    const loaded = new Set<string>();
    for (const entry of await readdir(dist, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".js")) continue;
      const code = await readFile(path.join(entry.parentPath, entry.name), "utf8");
      for (const match of code.matchAll(/require\("([^".][^"]*)"\)|import\("([^".][^"]*)"\)/g)) {
        const specifier = match[1] ?? match[2] ?? "";
        const name = specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!;
        if (!specifier.startsWith("node:") && !builtinModules.includes(name)) loaded.add(name);
      }
    }
    expect([...loaded].sort()).toEqual(Object.keys(manifest.dependencies).sort());
  });

  it("`npx cloudplatform-emulator --help` prints its options", async () => {
    const { stdout } = await run("npx", ["cloudplatform-emulator", "--help"], {
      cwd: infra,
      env: { HOME: process.env.HOME ?? infra, PATH: plainPath() },
    });
    expect(stdout).toContain("Usage: cloudplatform-emulator [options]");
    expect(stdout).toContain("--data-dir <dir>");
  });

  it("emulator/README.md's block starts it with npx and sets the three variables from its JSON line; it serves the management API and S3", async () => {
    const emulator = await readmeEmulator(infra);
    running.push(emulator);
    const { line } = emulator;
    expect(Object.keys(line).sort()).toEqual(["apiKey", "apiUrl", "baseUrl", "s3Url", "shape", "token"]);
    const headers = { authorization: line.apiKey, "content-type": "application/json" };
    const made = await fetch(`${line.baseUrl}/object-storage/buckets`, {
      method: "POST",
      headers,
      body: JSON.stringify({ name: "from-npx", storage_class: "Standard" }),
    });
    expect(made.status).toBe(201);
    const bucket = (await made.json()) as { id: string; name: string };
    const key = await fetch(`${line.baseUrl}/object-storage/buckets/${bucket.id}/credentials`, {
      method: "POST",
      headers,
    });
    const credential = (await key.json()) as { access_key_id: string; secret_access_key: string };
    const access = {
      endpoint: line.s3Url,
      region: "us-east-1",
      bucket: "from-npx",
      accessKeyId: credential.access_key_id,
      secretAccessKey: credential.secret_access_key,
    };
    expect(await roundTrip(access)).toBe("ok");
    // The console's page and its assets come from the installed package too.
    const page = await fetch(`${line.baseUrl}/_emulator/console`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/_emulator\/console\/static\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) expect((await fetch(`${line.baseUrl}${asset}`)).status, asset).toBe(200);
    // Its request log goes to stderr, never the credentials.
    expect(emulator.stderr()).toContain('"route":"POST /object-storage/buckets"');
    expect(emulator.stderr()).not.toContain(line.apiKey);
  });

  it("stops on Ctrl-C and keeps its state in --data-dir across a restart", async () => {
    const first = running.pop()!;
    const apiKey = first.line.apiKey;
    await first.stop("SIGINT");
    expect(first.stderr()).toContain("cloudplatform-emulator: SIGINT received, shutting down");
    const again = await npxEmulator(infra, ["--data-dir", ".emulator", "--quiet"]);
    running.push(again);
    expect(again.line.apiKey).toBe(apiKey);
    const listed = await fetch(`${again.line.baseUrl}/object-storage/buckets`, { headers: { authorization: apiKey } });
    expect(((await listed.json()) as Array<{ name: string }>).map((b) => b.name)).toEqual(["from-npx"]);
  });
});

describe("the repository's workspace", () => {
  it("still links the emulator for the root (npm ci installs it as a workspace)", async () => {
    const lock = JSON.parse(readFileSync(path.join(repoRoot, "package-lock.json"), "utf8")) as {
      packages: Record<string, { link?: boolean; resolved?: string; version?: string }>;
    };
    expect(lock.packages["node_modules/cloudplatform-emulator"]).toEqual({ resolved: "emulator", link: true });
    const emulator = JSON.parse(readFileSync(path.join(repoRoot, "emulator", "package.json"), "utf8")) as Manifest;
    expect(lock.packages["emulator"]?.version).toBe(emulator.version);
  });
});
