// An interrupted deployment converges (docs/interruptions.md): a SIGKILL of the Pulumi CLI or of the
// program mid-`up`, then what a user does — the page's blocks run as written in the program's folder,
// `pulumi cancel` when the stack is locked and `pulumi up`, with `npx cloudplatform-recover --yes`
// between them on another machine — leaves the platform holding exactly what the stack holds, and
// `destroy` leaves it empty. examples/soak at a small size, with the soak's own pieces (test/soak).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pulumiBinDir, repoRoot } from "../../scripts/lib/paths.mts";
import { engineEnv } from "../../scripts/lib/runner.mts";
import { recordUse, sectionBlocks, type DocBlock } from "../support/doc-blocks.mts";
import { compare, holdingsFromExport, leftovers, total, type Declaration } from "../support/compare.mts";
import { endAll, waitGone } from "../support/processes.mts";
import { SoakStack, type Config } from "../support/stacks.mts";
import { providerConfig } from "../support/emulator.js";
import { useExampleStack } from "../support/hooks.js";
import { killedUp as killUp } from "./support/kill.js";
import { languageHostFolder } from "./support/packages.js";
import { readerScript } from "./support/readme.js";

const run = promisify(execFile);
const declaration: Declaration = { buckets: 4, credentialsPerBucket: 2, zones: 2, namePrefix: "e2e" };
/** 4 buckets (2 auto-named), 8 credentials, 2 zones. */
const creates = 14;

describe("an interrupted deployment", () => {
  const soak = useExampleStack("soak", { config: () => ({}) });
  let config: Config;
  const roots: string[] = [];
  /** The Node.js language host `pulumi up` starts (the vendor's is not in this CLI build: packages.ts). */
  let hostDir: string;

  beforeAll(async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-e2e-interrupted-host-"));
    roots.push(root);
    hostDir = await languageHostFolder(root);
    config = {
      ...providerConfig(soak.emulator),
      "cloudplatform-soak:buckets": { value: String(declaration.buckets) },
      "cloudplatform-soak:credentialsPerBucket": { value: String(declaration.credentialsPerBucket) },
      "cloudplatform-soak:zones": { value: String(declaration.zones) },
      "cloudplatform-soak:namePrefix": { value: declaration.namePrefix },
    };
  });
  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
  });

  async function freshStack(): Promise<SoakStack> {
    await soak.platform.clearFaults();
    await soak.platform.reset();
    const root = await mkdtemp(path.join(os.tmpdir(), "cloudplatform-e2e-interrupted-"));
    roots.push(root);
    return new SoakStack(soak.stack.workDir, path.join(root, "state"), "e2e", "cloudplatform-soak");
  }

  /** Credential creates the checkpoint on disk says are under way (the file backend's `pending_operations`). */
  async function pendingCredentialCreatesOnDisk(stack: SoakStack): Promise<number> {
    const file = path.join(
      stack.stateDir,
      "backend",
      ".pulumi",
      "stacks",
      stack.projectName,
      `${stack.stackName}.json`,
    );
    try {
      const state = JSON.parse(await readFile(file, "utf8")) as {
        checkpoint?: { latest?: { pending_operations?: Array<{ type?: string; resource?: { type?: string } }> } };
      };
      const operations = state.checkpoint?.latest?.pending_operations ?? [];
      return operations.filter((op) => op.type === "creating" && op.resource?.type?.endsWith(":BucketCredential"))
        .length;
    } catch {
      return 0; // not written yet, or caught mid-write: read again
    }
  }

  /**
   * Starts `up` and SIGKILLs the CLI or the program once `ready()` says so, every request held back
   * `latencyMs` before the platform processes it, so that creates are in flight. Returns the killed
   * run's processes.
   */
  const killedUp = (stack: SoakStack, victim: "cli" | "program", ready: () => Promise<boolean>, latencyMs = 300) =>
    killUp({ platform: soak.platform, stack, config, victim, ready, faults: { latencyMs } });

  /**
   * The page's block `index` (0: same machine, 1: another machine), which must say `says`, run as
   * written in the program's folder with the shell a user has there: the Pulumi CLI and node on PATH,
   * the stack's backend and passphrase in the environment, the stack selected (by the killed `up`).
   * Its comment "only if the CLI says the stack is locked" is an instruction: the `pulumi cancel`
   * line runs only when the stack is locked. PULUMI_SKIP_CONFIRMATIONS stands for the reader's "yes"
   * to the CLI's prompts (no terminal here). Recorded as run (test/support/doc-blocks.mts); its stdout.
   */
  async function runPageBlock(stack: SoakStack, index: number, says: string): Promise<string> {
    const block: DocBlock | undefined = sectionBlocks("docs/interruptions.md", "When a deployment is interrupted", 1)[
      index
    ];
    if (block?.language !== "sh" || !block.text.includes(says))
      throw new Error(`docs/interruptions.md: its block ${index + 1} is no longer the sh block with \`${says}\``);
    recordUse([block], "ran", expect.getState().testPath ?? "test/e2e/interrupted.test.ts");
    const cancel = block.text.split("\n").find((line) => line.startsWith("pulumi cancel"));
    const locked = await stack.isLocked();
    // The page's blocks name no placeholder (no path, address or key): nothing of the reader's to put in.
    const script = readerScript(
      block,
      { repository: "", baseUrl: "", s3Url: "" },
      cancel && !locked ? { [cancel.trim()]: "" } : {},
    );
    const engine = engineEnv(stack.stateDir, pulumiBinDir());
    const env = {
      ...process.env,
      ...engine,
      PATH: [hostDir, engine.PATH].join(path.delimiter),
      PULUMI_SKIP_CONFIRMATIONS: "true",
      // The examples' shared install holds their runtime packages only; the language host compiles
      // index.ts with the `typescript` a user's `npm install` puts there (a devDependency): the repository's.
      NODE_PATH: path.join(repoRoot, "node_modules"),
    };
    const result = await run("bash", ["-c", script], {
      cwd: soak.stack.workDir,
      env,
      maxBuffer: 64 << 20,
      timeout: 600_000,
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`docs/interruptions.md's block failed:\n${script}\n${error.stdout ?? ""}\n${error.stderr ?? ""}`);
    });
    return result.stdout;
  }

  async function ok(stack: SoakStack, op: "destroy"): Promise<void> {
    const result = await stack.run(op, config);
    expect(result.ok, `pulumi ${op}: ${result.error ?? ""}`).toBe(true);
  }

  /** The platform holds exactly what the stack holds, then nothing once the stack is destroyed. */
  async function expectConverged(stack: SoakStack): Promise<void> {
    const exported = await stack.run("export");
    const compared = compare(
      declaration,
      await soak.platform.inventory(),
      holdingsFromExport(exported.exported ?? "{}"),
    );
    expect(compared.duplicates).toEqual({ buckets: 0, credentials: 0, zones: 0 });
    expect(compared.orphanNames).toEqual([]);
    expect(compared.missing).toEqual({ buckets: 0, credentials: 0, zones: 0 });
    expect(holdingsFromExport(exported.exported ?? "{}").resources).toBe(creates);
    await ok(stack, "destroy");
    expect(total(leftovers(await soak.platform.inventory()))).toBe(0);
  }

  for (const victim of ["cli", "program"] as const) {
    it(`converges on the same machine after a kill of the ${victim}: pulumi cancel, pulumi up`, async () => {
      const stack = await freshStack();
      const killed = await killedUp(stack, victim, async () => (await soak.platform.stats()).writes >= 6);
      try {
        // Nothing of the killed run stays behind: the provider host (@pulumi/pulumi's shell wrapper
        // and its node, which serves our resources) ends with its engine (provider/plugin/engine-watch.ts).
        expect(await waitGone(killed.slice(1), 15_000), "the killed run's processes ended").toBe(true);
        // The killed CLI's provider process may still be finishing its creates: the next run sees to it.
        await runPageBlock(stack, 0, "pulumi up");
        await expectConverged(stack);
      } finally {
        await endAll(killed);
      }
    });
  }

  it("converges on another machine with cloudplatform-recover --yes between pulumi cancel and pulumi up", async () => {
    const stack = await freshStack();
    // The machine is gone, and its journal with it. The kill must land while creates are in flight
    // and recorded as such in the checkpoint. The platform's count of writes alone once landed in
    // the moment between the buckets' answers and the credentials' creates, when the checkpoint held
    // no pending create; the buckets' own pending creates are gone from it a moment later. The
    // credentials' creates are sent only once their bucket exists and are held back 2 s by the
    // platform: once the checkpoint shows one, it keeps showing it well past the kill.
    const inFlight = async () => (await pendingCredentialCreatesOnDisk(stack)) > 0;
    await endAll(await killedUp(stack, "cli", inFlight, 2_000));
    await rm(path.join(stack.stateDir, "home", "cloudplatform"), { recursive: true, force: true });
    // `pulumi stack export` reads the checkpoint whether the stack is locked or not.
    const held = holdingsFromExport((await stack.run("export")).exported ?? "{}");
    expect(held.pending["creating"] ?? 0, "the killed up left creates pending in the stack").toBeGreaterThan(0);
    const before = compare(declaration, await soak.platform.inventory(), held);
    // `pulumi cancel` if locked, `npx cloudplatform-recover --yes` (the selected stack), `pulumi up`.
    const printed = await runPageBlock(stack, 1, "npx cloudplatform-recover");
    // It deleted what the interrupted creates made that the stack does not hold, and said so.
    if (total(before.orphans) > 0) expect(printed).toMatch(/^ {2}deleted .*: made by /m);
    expect(printed).toContain("done: run `pulumi up`.");
    expect(printed).not.toContain(soak.emulator.apiKey);
    await expectConverged(stack);
  });
});
