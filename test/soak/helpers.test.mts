// Options, /proc parsing, and how the soak reads the engine's failures.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, it } from "vitest";
import { lanesOf, parseOptions, UsageError } from "./options.mts";
import { parseStat, processTree } from "../support/processes.mts";
import { seeded } from "./random.mts";
import { emptyAttributeFiles, errorSummary, isConflictError, isLockedError, repairState } from "../support/stacks.mts";

describe("parseOptions", () => {
  it("has the issue's sizes by default and smaller counts with --short", () => {
    const long = parseOptions(["--seed", "1"]);
    const short = parseOptions(["--short", "--seed", "1"]);
    assert.ok(long !== "help" && short !== "help");
    assert.deepEqual([long.rounds, long.lostRounds, long.killRounds, long.emulatorCycles], [20, 3, 16, 6]);
    assert.deepEqual([short.rounds, short.lostRounds, short.killRounds, short.emulatorCycles], [3, 2, 2, 2]);
    assert.deepEqual(long.declaration, { buckets: 30, credentialsPerBucket: 2, zones: 8, namePrefix: "soak" });
    assert.equal(long.recover, undefined);
    assert.deepEqual([...long.only], ["faults", "lost", "kills", "emulator", "tests"]);
  });

  it("takes explicit counts over --short, and the situations to run", () => {
    const o = parseOptions(["--short", "--kill-rounds", "4", "--only", "kills", "--recover", "echo {stack}"]);
    assert.ok(o !== "help");
    assert.equal(o.killRounds, 4);
    assert.deepEqual([...o.only], ["kills"]);
    assert.equal(o.recover, "echo {stack}");
  });

  it("shares the faults rounds between three lanes, and gives the other situations one each", () => {
    const lanes = (argv: string[]) => {
      const o = parseOptions(argv);
      assert.ok(o !== "help");
      return lanesOf(o).map((l) => `${l.name} ${l.first}-${l.last}/${l.rounds} +${l.seedOffset}`);
    };
    assert.deepEqual(lanes(["--short"]), [
      "faults 1-1/3 +1",
      "lost 1-2/2 +2",
      "kills 1-2/2 +3",
      "faults 2-2/3 +4",
      "faults 3-3/3 +5",
    ]);
    assert.deepEqual(lanes([]), [
      "faults 1-7/20 +1",
      "lost 1-3/3 +2",
      "kills 1-16/16 +3",
      "faults 8-14/20 +4",
      "faults 15-20/20 +5",
    ]);
    // Fewer rounds than lanes: a lane each; a situation left out has none.
    assert.deepEqual(lanes(["--rounds", "1", "--only", "faults,kills"]), ["faults 1-1/1 +1", "kills 1-16/16 +3"]);
    assert.deepEqual(lanes(["--rounds", "2", "--only", "faults"]), ["faults 1-1/2 +1", "faults 2-2/2 +4"]);
    assert.deepEqual(lanes(["--rounds", "4", "--only", "faults"]), [
      "faults 1-2/4 +1",
      "faults 3-3/4 +4",
      "faults 4-4/4 +5",
    ]);
  });

  it("refuses what it cannot use", () => {
    assert.throws(() => parseOptions(["--rounds", "two"]), UsageError);
    assert.throws(() => parseOptions(["--only", "faults,typo"]), UsageError);
    assert.throws(() => parseOptions(["--recover", " "]), UsageError);
    assert.throws(() => parseOptions(["--unknown"]), UsageError);
  });
});

describe("parseStat", () => {
  it("reads the parent and start time even when the command name holds spaces and parentheses", () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = "S";
    fields[1] = "77";
    const stat = `1234 (odd) name (x)) ${fields.join(" ")}`;
    assert.deepEqual(parseStat(stat), { pid: 1234, ppid: 77, startTime: "22" });
  });

  it("finds this process and its parent link in /proc", async () => {
    const tree = await processTree(process.pid);
    assert.equal(tree[0]?.pid, process.pid);
    assert.equal(tree[0]?.ppid, process.ppid);
  });
});

describe("seeded", () => {
  it("replays the same choices for the same seed", () => {
    const a = seeded(42);
    const b = seeded(42);
    const draws = Array.from({ length: 5 }, () => a.int(100));
    assert.deepEqual(
      Array.from({ length: 5 }, () => b.int(100)),
      draws,
    );
    assert.ok(draws.every((n) => n >= 0 && n < 100));
    assert.notDeepEqual(
      Array.from({ length: 5 }, () => seeded(43).int(1000)),
      Array.from({ length: 5 }, () => seeded(42).int(1000)),
    );
  });
});

describe("reading the engine's failures", () => {
  const conflict =
    "stderr: Command failed with exit code 1: pulumi up\n +  x creating (0s) warning: POST /dns/zones: CLOUDPLATFORM_HTTP_503; retrying in 1s\n" +
    '    error: DnsZone "zone-03": POST /dns/zones answered 409 name_taken (CLOUDPLATFORM_CONFLICT)\n' +
    "    error: update failed\n";

  it("keeps the resource's own error lines and drops retry warnings and the generic one", () => {
    assert.deepEqual(errorSummary(conflict), [
      'error: DnsZone "zone-03": POST /dns/zones answered 409 name_taken (CLOUDPLATFORM_CONFLICT)',
    ]);
    assert.deepEqual(errorSummary("the runner ended (signal SIGKILL)\nmore"), ["the runner ended (signal SIGKILL)"]);
  });

  it("tells a name conflict and a lock refusal from other failures", () => {
    assert.equal(isConflictError(conflict), true);
    assert.equal(isConflictError("error: POST /dns/zones may have reached the server (CLOUDPLATFORM_NETWORK)"), false);
    assert.equal(
      isLockedError("error: the stack is currently locked by 1 lock(s). Either wait for the other process(es)"),
      true,
    );
    assert.equal(isLockedError(conflict), false);
  });
});

describe("repairState", () => {
  it("removes only the empty attribute files a killed CLI left in the backend", async () => {
    const stateDir = await mkdtemp(path.join(os.tmpdir(), "soak-test-"));
    try {
      const stacks = path.join(stateDir, "backend", ".pulumi", "stacks", "cloudplatform-soak");
      await mkdir(stacks, { recursive: true });
      await writeFile(path.join(stacks, "kills-01.json"), "{}");
      await writeFile(path.join(stacks, "kills-01.json.attrs"), "");
      await writeFile(path.join(stacks, "kills-01.json.bak.attrs"), '{"md5":"x"}');
      assert.equal((await emptyAttributeFiles(stateDir)).length, 1);
      assert.deepEqual(await repairState(stateDir), ["kills-01.json.attrs"]);
      assert.deepEqual((await readdir(stacks)).sort(), ["kills-01.json", "kills-01.json.bak.attrs"]);
      assert.deepEqual(await repairState(stateDir), []);
    } finally {
      await rm(stateDir, { recursive: true, force: true });
    }
  });
});
