// The test suite's own machinery: the closing summary of `npm test` (over a vitest JSON report
// recorded from a run with a failing test, a file that fails at import, one whose beforeAll throws,
// one whose afterAll throws, and tests skipped for a missing tool), tool detection and `needs`, and
// the errors of the helper that runs external programs.
import { readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { costliestFiles, fileSpans, phaseFigures, summarise, type VitestJsonReport } from "../support/summary.mts";
import { cpuSecondsOfStat } from "../support/timing-reporter.mts";
import { ProgramError, programFailure, runProgram, UndeclaredToolError } from "../support/tools.mts";
import {
  applyConfig,
  initOrSelectStack,
  isProgramModule,
  loadAutomation,
  pulumiCommandOf,
  type ConfigSetter,
  type RunRequest,
} from "../../scripts/lib/runner.mts";
import { transpiled } from "../support/transpiled.mts";
import { runnerEnv } from "../support/stacks.mts";
import {
  decryptValue,
  encryptValue,
  isSecret,
  passphraseKey,
  revealed,
  secretSignature,
} from "../../scripts/lib/passphrase.mts";
import { configuredSettings } from "../../scripts/lib/stack-settings.mts";
import { faultFiles } from "../support/phases.mts";

const recorded = JSON.parse(
  readFileSync(path.join(__dirname, "fixtures", "vitest-report-broken-files.json"), "utf8"),
) as VitestJsonReport;
const root = "/repo";

describe("the closing summary", () => {
  it("counts files that failed to load or set up as failed, naming them, so the line matches the exit status", () => {
    const summary = summarise({ report: recorded, vitestStatus: 1, root });
    expect(summary.lines.at(-1)).toBe("2 passed, 4 failed, 3 skipped");
    expect(summary).toMatchObject({ passed: 2, failed: 4, skipped: 3 });
    const text = summary.lines.join("\n");
    expect(text).toContain("test/import-error.test.mjs: Cannot find module './missing.js'");
    expect(text).toContain("test/setup-error.test.mjs: spawnSync espeak-ng ENOENT (2 tests not run)");
    expect(text).toMatch(/test\/hook-in-suite\.test\.mjs: a beforeAll\/afterAll hook or the worker failed/);
    expect(text).toContain("Failed tests:\n  test/mixed.test.mjs › fails");
  });

  it("lists skipped tests under their reason, and counts those skipped without one", () => {
    const text = summarise({ report: recorded, vitestStatus: 1, root }).lines.join("\n");
    expect(text).toContain(
      [
        "  needs rclone; install: sudo apt-get install -y rclone (2 tests):",
        "    test/mixed.test.mjs › rclone › copies up and down",
        "    test/mixed.test.mjs › rclone › fails with a wrong secret",
      ].join("\n"),
    );
    expect(text).toContain("  1 with no reason recorded");
  });

  it("passes a run whose only non-passing tests were skipped for a missing tool", () => {
    const mixed = recorded.testResults.find((f) => f.name.endsWith("mixed.test.mjs"))!;
    const report = {
      testResults: [
        {
          ...mixed,
          status: "passed",
          assertionResults: mixed.assertionResults.filter((a) => a.status === "passed" || a.meta?.["skipReason"]),
        },
      ],
    };
    const summary = summarise({ report, vitestStatus: 0, root });
    expect(summary.lines.at(-1)).toBe("1 passed, 0 failed, 2 skipped");
    expect(summary.failed).toBe(0);
  });

  it("never closes on 0 failed when vitest failed: an error outside the tests counts as one failure", () => {
    const passing = { testResults: [{ name: "/repo/a.test.ts", status: "passed", assertionResults: [] }] };
    const summary = summarise({ report: passing, vitestStatus: 1, root });
    expect(summary.lines.at(-1)).toBe("0 passed, 1 failed");
    expect(summary.lines[0]).toMatch(/vitest exited with status 1 although no test in its report failed/);
  });

  it("counts in words: one test not run", () => {
    const oneTest = [{ ancestorTitles: [], title: "one", status: "skipped", meta: {} }];
    const report = {
      testResults: [{ name: "/repo/a.test.ts", status: "failed", message: "boom", assertionResults: oneTest }],
    };
    expect(summarise({ report, vitestStatus: 1, root }).lines).toContain("  a.test.ts: boom (1 test not run)");
  });

  it("names the slowest files, slowest first, at most 20, before the closing line", () => {
    const files = Array.from({ length: 25 }, (_, i) => ({
      name: `/repo/test/e2e/f${i}.test.ts`,
      status: "passed",
      startTime: 1_000,
      endTime: 1_000 + i * 1_500,
      assertionResults: [{ ancestorTitles: [], title: "t", status: "passed" }],
    }));
    const lines = summarise({ report: { testResults: files }, vitestStatus: 0, root }).lines;
    expect(lines[0]).toBe("Slowest 20 test files:");
    expect(lines[1]).toBe("    36.0 s  test/e2e/f24.test.ts");
    expect(lines[20]).toBe("     7.5 s  test/e2e/f5.test.ts");
    expect(lines).not.toContain("     6.0 s  test/e2e/f4.test.ts");
    expect(lines.at(-1)).toBe("25 passed, 0 failed");
  });

  it("in a --tags-filter run, counts untagged tests apart and fails one that ran anyway", () => {
    const result = (title: string, status: string, tags: string[], meta = {}) => ({
      ancestorTitles: [],
      title,
      status,
      tags,
      meta,
    });
    const skipReason = "needs aws; install: sudo apt-get install -y awscli";
    const filtered = {
      testResults: [
        {
          name: "/repo/test/e2e/a.test.ts",
          status: "passed",
          assertionResults: [
            result("tool", "skipped", ["debian-tool"], { skipReason }),
            result("other", "skipped", []),
            result("another", "skipped", []),
          ],
        },
      ],
    };
    const clean = summarise({ report: filtered, vitestStatus: 0, root, onlyTag: "debian-tool" });
    expect(clean.lines).toContain("  2 tests without the tag debian-tool, left out by --tags-filter");
    expect(clean.lines.at(-1)).toBe("0 passed, 0 failed, 3 skipped");
    const ran = structuredClone(filtered);
    ran.testResults[0]!.assertionResults[1] = result("other", "passed", []);
    const leaked = summarise({ report: ran, vitestStatus: 0, root, onlyTag: "debian-tool" });
    expect(leaked.lines).toContain("  test/e2e/a.test.ts › other");
    expect(leaked.lines.at(-1)).toBe("0 passed, 1 failed, 2 skipped");
    // Without the filter, the same report's untagged skips have no reason.
    expect(summarise({ report: filtered, vitestStatus: 0, root }).lines).toContain(
      "  2 with no reason recorded (left out by a name filter or marked skip in code)",
    );
  });

  it("fails when vitest wrote no report or one of another shape", () => {
    expect(summarise({ report: undefined, vitestStatus: 1, root }).lines).toEqual([
      "vitest failed (exit 1) with no report from vitest: see its output above",
      "0 passed, 1 failed",
    ]);
    expect(summarise({ report: { tests: [] }, vitestStatus: 0, root }).failed).toBe(1);
  });
});

describe("the phases' figures", () => {
  const file = (name: string, start: number, end: number) => ({
    name: `/repo/${name}`,
    status: "passed",
    startTime: start * 1000,
    endTime: end * 1000,
    assertionResults: [],
  });

  it("gives each phase its wall time, files at once, and how long its last file ran alone", () => {
    const report = {
      testResults: [
        file("test/unit/a.test.ts", 0, 10),
        file("emulator/test/b.test.ts", 0, 4),
        file("test/e2e/c.test.ts", 10, 110),
        file("test/e2e/d.test.ts", 10, 50),
        file("test/e2e/e.test.ts", 50, 70),
      ],
    };
    expect(phaseFigures(fileSpans(report, "/repo"))).toEqual([
      "  unit and emulator     10 s, 2 files, 1.4 at once on average; the last, test/unit/a.test.ts, ran 6 s alone",
      "  e2e                  100 s, 3 files, 1.6 at once on average; the last, test/e2e/c.test.ts, ran 40 s alone",
    ]);
  });

  it("takes the files' spans with their hooks from the timing reporter when it wrote them", () => {
    const report = { testResults: [file("test/e2e/c.test.ts", 30, 40)] };
    const timings = [{ file: "/repo/test/e2e/c.test.ts", start: 0, end: 40_000 }];
    expect(fileSpans(report, "/repo", timings)).toEqual([{ name: "test/e2e/c.test.ts", start: 0, end: 40_000 }]);
    expect(fileSpans(report, "/repo", [])).toEqual([{ name: "test/e2e/c.test.ts", start: 30_000, end: 40_000 }]);
    const text = summarise({ report, vitestStatus: 0, root: "/repo", timings }).lines.join("\n");
    expect(text).toContain("    40.0 s  test/e2e/c.test.ts");
  });

  it("names the files that cost the most CPU, costliest first, with their wall time and the total", () => {
    const report = { testResults: [file("test/e2e/c.test.ts", 0, 40), file("test/e2e/d.test.ts", 0, 100)] };
    const cpu = [
      { file: "/repo/test/e2e/d.test.ts", cpu: 12.5 },
      { file: "/repo/test/e2e/c.test.ts", cpu: 61.25 },
      { file: "/repo/test/e2e/gone.test.ts", cpu: 3 },
    ];
    const lines = summarise({ report, vitestStatus: 0, root: "/repo", cpu }).lines;
    const at = lines.findIndex((l) => l.startsWith("Most CPU"));
    expect(lines.slice(at, at + 4)).toEqual([
      "Most CPU (a file's worker and the processes it waited for; 77 s over 3 files):",
      "    61.3 s of CPU in 40.0 s  test/e2e/c.test.ts",
      "    12.5 s of CPU in 100.0 s  test/e2e/d.test.ts",
      "     3.0 s of CPU  test/e2e/gone.test.ts",
    ]);
    expect(costliestFiles(cpu, [], "/repo", 1)).toHaveLength(2);
    expect(summarise({ report, vitestStatus: 0, root: "/repo" }).lines.join("\n")).not.toContain("Most CPU");
  });

  it("reads a file's CPU from /proc's stat line: its own and its waited-for children's, in USER_HZ ticks", () => {
    // pid (comm with a space) state ppid ... utime=1234 stime=56 cutime=7000 cstime=810 ...
    const stat = "4242 (node (vitest 1)) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 56 7000 810 20 0 11 0 99";
    expect(cpuSecondsOfStat(stat)).toBe(91);
  });
});

describe("tool detection", () => {
  // Each case a copy of its own, never the one this file imported (whose declarations the gate's tests read).
  beforeEach(() => {
    vi.resetModules();
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  /** A fresh copy of the module: it answers once per process, and each case sets its own environment. */
  const freshTools = () => import("../support/tools.mts");

  it("probes PATH: a tool that is not there is missing, and `needs` skips with the install command", async () => {
    const empty = await mkdtemp(path.join(tmpdir(), "no-tools-"));
    try {
      vi.stubEnv("PATH", empty);
      vi.stubEnv("CLOUDPLATFORM_TEST_TOOLS", undefined);
      vi.stubEnv("CI", undefined);
      const tools = await freshTools();
      expect(tools.hasTool("rclone")).toBe(false);
      expect(tools.needs("rclone", "pocketsphinx")).toEqual({
        skip: true,
        tags: ["debian-tool"],
        meta: {
          tools: ["rclone", "pocketsphinx"],
          skipReason:
            "needs rclone, pocketsphinx; install: sudo apt-get install -y rclone pocketsphinx pocketsphinx-en-us",
        },
      });
      // Go is no Debian tool: a test that needs Go alone is not re-run without the Debian tools.
      expect(tools.needs("go").tags).toEqual([]);
      expect(tools.needs("go", "sox").meta?.skipReason).toBe(
        "needs go, sox; install: sudo apt-get install -y sox; Go 1.25 or newer from https://go.dev/doc/install",
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("takes the answer test.sh hands over, and under CI never skips", async () => {
    vi.stubEnv("CLOUDPLATFORM_TEST_TOOLS", JSON.stringify({ sox: true, rclone: false }));
    vi.stubEnv("CI", "");
    const tools = await freshTools();
    expect(tools.needs("sox")).toEqual({ tags: ["debian-tool"], meta: { tools: ["sox"] } });
    expect(tools.needs("sox", "rclone").skip).toBe(true);
    vi.stubEnv("CI", "true");
    expect(tools.needs("rclone")).toEqual({ tags: ["debian-tool"], meta: { tools: ["rclone"] } });
    expect(tools.installCommand(["ffmpeg", "sox", "ffmpeg"])).toBe("sudo apt-get install -y ffmpeg sox");
  });
});

describe("running an external program", () => {
  // Declared as `needs("rclone")` would, without its skip: the point is the answer when it is missing.
  it("names a missing program and how to install it", { meta: { tools: ["rclone"] } }, async () => {
    const empty = await mkdtemp(path.join(tmpdir(), "no-tools-"));
    try {
      const error = await runProgram("rclone", ["version"], { env: { PATH: empty } }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProgramError);
      expect((error as ProgramError).message).toBe(
        "rclone is not installed (not found on PATH); install it with: sudo apt-get install -y rclone",
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it("fails with the program's name, its exit status and its stderr", async () => {
    const error = await runProgram("sh", ["-c", "echo 'SignatureDoesNotMatch: the secret is wrong' >&2; exit 3"]).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProgramError);
    expect((error as ProgramError).message).toMatch(
      /^`sh -c .*` exited with status 3; stderr:\nSignatureDoesNotMatch: the secret is wrong$/s,
    );
    expect(error).toMatchObject({ program: "sh", exitCode: 3 });
  });

  it("reports a program killed at its deadline", async () => {
    const error = await runProgram("sleep", ["5"], { timeoutMs: 100 }).catch((e: unknown) => e);
    expect((error as ProgramError).message).toMatch(/^`sleep 5` killed after 0\.1 s/);
  });

  it("returns the output of a program expected to fail, and fails when it succeeds instead", async () => {
    const failure = await programFailure("sh", ["-c", "echo out; echo denied >&2; exit 1"]);
    expect(failure).toEqual({ stdout: "out\n", stderr: "denied\n", exitCode: 1 });
    await expect(programFailure("sh", ["-c", "echo fine"])).rejects.toThrow(
      /^`sh -c echo fine` succeeded but was expected to fail; stdout:\nfine$/,
    );
  });
});

describe("the gate: a test runs only the tools it declared", () => {
  // The tools themselves need not be installed: the refusal comes before the program would start.
  it("refuses a tool that neither the test nor its suites declared, naming the needs() to add", async () => {
    const error = await runProgram("ffprobe", ["-version"]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UndeclaredToolError);
    expect((error as Error).message).toBe(
      'the test "refuses a tool that neither the test nor its suites declared, naming the needs() to add" runs ' +
        'ffprobe without declaring it: add needs("ffmpeg") to the describe or it that uses it ' +
        "(test/support/tools.mts), so that a machine without ffmpeg skips it instead of failing",
    );
    await expect(programFailure("go", ["version"])).rejects.toThrow(UndeclaredToolError);
  });

  it(
    "lets through what the test declared, and programs that are no tool",
    { meta: { tools: ["rclone"] } },
    async () => {
      const empty = await mkdtemp(path.join(tmpdir(), "no-tools-"));
      try {
        // Past the gate, so the answer is the missing program's, not the gate's.
        await expect(runProgram("rclone", ["version"], { env: { PATH: empty } })).rejects.toThrow(/not installed/);
        await expect(runProgram("sh", ["-c", "exit 0"])).resolves.toEqual({ stdout: "", stderr: "" });
      } finally {
        await rm(empty, { recursive: true, force: true });
      }
    },
  );

  describe("in a hook, which belongs to no test", () => {
    let refusal: unknown;
    beforeAll(async () => {
      refusal = await runProgram("sox", ["--version"]).catch((e: unknown) => e);
    });

    it("refuses a tool that no needs() of the file declared", () => {
      expect(refusal).toBeInstanceOf(UndeclaredToolError);
      expect((refusal as Error).message).toMatch(/^a hook of this test file runs sox without declaring it/);
    });
  });

  describe("declared by a suite", { meta: { tools: ["aws"] } }, () => {
    it("covers the tests inside it", async () => {
      const empty = await mkdtemp(path.join(tmpdir(), "no-tools-"));
      try {
        await expect(runProgram("aws", ["--version"], { env: { PATH: empty } })).rejects.toThrow(/not installed/);
      } finally {
        await rm(empty, { recursive: true, force: true });
      }
    });
  });

  it("maps every program to its tool, and only Debian's tools are hidden to play a fresh machine", async () => {
    const tools = await import("../support/tools.mts");
    expect(tools.toolOfProgram("/usr/bin/ffprobe")).toBe("ffmpeg");
    expect(tools.toolOfProgram("pocketsphinx_continuous")).toBe("pocketsphinx");
    expect(tools.toolOfProgram("node")).toBeUndefined();
    expect(tools.debianTools).not.toContain("go");
    expect(tools.debianTools).toContain("espeak-ng");
  });
});

describe("the fresh-machine run's verdict (scripts/test-without-tools.mts)", () => {
  const passing = [
    "Skipped:",
    "  needs espeak-ng, ffmpeg; install: sudo apt-get install -y espeak-ng ffmpeg (2 tests):",
    "    emulator/test/transcription.test.ts › a › b",
    "    emulator/test/transcription.test.ts › a › c",
    "10 passed, 0 failed, 2 skipped",
  ].join("\n");

  it("passes a run that exits 0 with its tools' tests skipped for their reason", async () => {
    const { judge } = await import("../../scripts/test-without-tools.mts");
    expect(judge(0, passing)).toEqual({ ok: true, problems: [] });
  });

  it("fails a failing run, one that skipped nothing, and skips that are not the hidden tools'", async () => {
    const { judge } = await import("../../scripts/test-without-tools.mts");
    expect(judge(1, "8 passed, 2 failed, 2 skipped").problems).toEqual(["npm test exited with status 1", "2 failed"]);
    expect(judge(0, "12 passed, 0 failed").problems).toEqual(["nothing was skipped, although the tools were hidden"]);
    expect(judge(0, passing.replace("needs espeak-ng, ffmpeg;", "needs go;")).problems).toEqual([
      "tests skipped for a tool that was not hidden: go",
    ]);
    expect(judge(0, `  3 with no reason recorded (left out by a name filter)\n${passing}`).problems).toEqual([
      "tests skipped without a reason: 3 with no reason recorded (left out by a name filter)",
    ]);
    expect(judge(1, "vitest crashed").problems).toEqual([
      "npm test exited with status 1",
      "no closing line `N passed, N failed, M skipped`",
    ]);
  });
});

describe("the e2e runner, serving one stack's operations in one process", () => {
  it("loads again every module of the program (the entry and those beside it), never its packages", async () => {
    const workDir = await mkdtemp(path.join(tmpdir(), "runner-program-"));
    try {
      expect(isProgramModule(workDir, path.join(workDir, "index.js"))).toBe(true);
      // A module the program imports, which declares resources too (cloudplatform-import's output).
      expect(isProgramModule(workDir, path.join(workDir, "cloudplatform-imported.js"))).toBe(true);
      expect(isProgramModule(workDir, path.join(workDir, "lib", "zones.js"))).toBe(true);
      expect(isProgramModule(workDir, path.join(workDir, "node_modules", "pulumi-cloudplatform", "index.js"))).toBe(
        false,
      );
      expect(isProgramModule(workDir, path.join(`${workDir}-other`, "index.js"))).toBe(false);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});

describe("the e2e runner's environment", () => {
  beforeEach(() => {
    vi.stubEnv("CLOUDPLATFORM_API_KEY", "cp-from-the-shell");
    vi.stubEnv("CLOUDPLATFORM_BASE_URL", "http://127.0.0.1:1");
    vi.stubEnv("CLOUDPLATFORM_PACK_CACHE", "/tmp/this-run-packs");
    vi.stubEnv("CLOUDPLATFORM_PULUMI_BIN_DIR", "/opt/pulumi/bin");
  });
  afterEach(() => vi.unstubAllEnvs());

  it("keeps where the toolchain and the run's packs are, and no setting of the provider's", () => {
    const env = runnerEnv();
    expect(
      Object.keys(env)
        .filter((k) => k.startsWith("CLOUDPLATFORM_"))
        .sort(),
    ).toEqual(["CLOUDPLATFORM_PACK_CACHE", "CLOUDPLATFORM_PULUMI_BIN_DIR"]);
    expect(env.CLOUDPLATFORM_PACK_CACHE).toBe("/tmp/this-run-packs");
  });
});

describe("the e2e runner's reading of a stack's secret outputs (scripts/lib/passphrase.mts)", () => {
  // Written by the Pulumi CLI v3.259.0 (`pulumi up` of a YAML program on a file:// backend, with the
  // runner's passphrase): the checkpoint's salt state and the root stack's outputs, as they were.
  const salt = "v1:EL6ZK06DfUM=:v1:5AgAX7bwtqJBQPxX:sq16goxc7gypAc206n2Mb2vw1XUcQw==";
  const sig = secretSignature;
  const outputs = {
    hidden: {
      [sig]: "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: "v1:P64J7XdM9thfSrxZ:2qYPRLUQkeN6YwP1mgQxeGqOZAifGgv5+5+CMtLN",
    },
    nested: {
      [sig]: "1b47061264138c4ac30d75fd1eb44270",
      ciphertext: "v1:f5IH5mbrpd99hoeu:w5kMZDEkaXPSTWSOTI6dn/cqhbOCseIw9w4sR4Wpc/mDiITGazwqixW7Il+o0Q==",
    },
    plain: "hello",
  };

  it("gives what `pulumi stack output --json --show-secrets` printed for the same state", () => {
    const key = passphraseKey("cloudplatform-local-passphrase", salt);
    expect(revealed(outputs, key)).toEqual({
      hidden: "s3cr3t-value",
      nested: { a: 1, b: { deep: [1, "two"] } },
      plain: "hello",
    });
    expect(Object.entries(outputs).map(([k, v]) => [k, isSecret(v)])).toEqual([
      ["hidden", true],
      ["nested", true],
      ["plain", false],
    ]);
  });

  it("refuses a wrong passphrase, a tampered value and a secret it cannot open, so the runner asks the CLI instead", () => {
    expect(() => passphraseKey("another-passphrase", salt)).toThrow();
    const key = passphraseKey("cloudplatform-local-passphrase", salt);
    expect(() => decryptValue(key, outputs.hidden.ciphertext.replace("2qYP", "2qYQ"))).toThrow();
    expect(() => revealed({ x: { [sig]: "1b47061264138c4ac30d75fd1eb44270", ciphertext: "v2:a:b" } }, key)).toThrow();
    expect(() => revealed(outputs)).toThrow();
  });
});

describe("the faults project: the end-to-end files `npm test` leaves to the soak (test/support/phases.mts)", () => {
  const repoRoot = path.resolve(__dirname, "..", "..");

  it("names files that exist, so none drops out of both npm test and the soak", () => {
    expect(faultFiles.length).toBeGreaterThan(0);
    for (const file of faultFiles) expect(readFileSync(path.join(repoRoot, file), "utf8")).toContain("describe(");
  });

  it("is left out of npm test's run by naming its three projects, and run by the soak", async () => {
    const config = (await import("../../vitest.config.mts")).default as {
      test: { projects: { test: { name: string; include: string[]; exclude?: string[] } }[] };
    };
    const project = (name: string) => config.test.projects.find((p) => p.test.name === name)?.test;
    expect(project("faults")?.include).toEqual([...faultFiles]);
    expect(project("e2e")?.exclude).toEqual([...faultFiles]);
    expect(readFileSync(path.join(repoRoot, "scripts", "test.sh"), "utf8")).toContain(
      "projects=(--project unit --project emulator --project e2e)",
    );
    expect(readFileSync(path.join(repoRoot, "test", "soak", "fault-tests.mts"), "utf8")).toContain(
      '"--project", "faults"',
    );
  });
});

describe("the e2e runner's config, written to the stack's settings file (scripts/lib/stack-settings.mts)", () => {
  const passphrase = "cloudplatform-local-passphrase";
  // As `pulumi stack init` then `pulumi config set` wrote them (CLI v3.259.0, the runner's passphrase).
  const salt = "v1:EL6ZK06DfUM=:v1:5AgAX7bwtqJBQPxX:sq16goxc7gypAc206n2Mb2vw1XUcQw==";
  const written = `encryptionsalt: ${salt}\nconfig:\n  cloudplatform:baseUrl: http://127.0.0.1:1\n  demo:kept: yes\n`;
  const yaml = createRequire(require.resolve("@pulumi/pulumi"))("js-yaml") as { load(text: string): unknown };

  it("sets plain values as strings and secrets encrypted with the stack's key, keeps the rest, removes what it is asked to", () => {
    const text = configuredSettings(
      written,
      passphrase,
      {
        "cloudplatform:apiKey": { value: "cp_live_s3cr3t", secret: true },
        "cloudplatform:baseUrl": { value: "http://127.0.0.1:2" },
        "demo:flag": { value: "true" },
        "demo:pem": { value: "-----BEGIN-----\nabc\n-----END-----" },
      },
      ["demo:kept"],
    );
    expect(text).toBeDefined();
    expect(text).not.toContain("cp_live_s3cr3t");
    const settings = yaml.load(text ?? "") as { encryptionsalt: string; config: Record<string, unknown> };
    expect(settings.encryptionsalt).toBe(salt);
    const { "cloudplatform:apiKey": apiKey, ...plain } = settings.config;
    expect(plain).toEqual({
      "cloudplatform:baseUrl": "http://127.0.0.1:2",
      "demo:flag": "true",
      "demo:pem": "-----BEGIN-----\nabc\n-----END-----",
    });
    const secure = (apiKey as { secure: string }).secure;
    expect(secure).toMatch(/^v1:[A-Za-z0-9+/=]{16}:[A-Za-z0-9+/=]+$/);
    expect(decryptValue(passphraseKey(passphrase, salt), secure)).toBe("cp_live_s3cr3t");
    // The config section goes when its last key does, as the CLI leaves it.
    const emptied = configuredSettings(written, passphrase, {}, ["cloudplatform:baseUrl", "demo:kept"]);
    expect(yaml.load(emptied ?? "")).toEqual({ encryptionsalt: salt });
  });

  it("the runner writes the file itself when it can, and runs `config set-all` only when it cannot", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "runner-config-"));
    try {
      const cli: string[] = [];
      const stack: ConfigSetter = {
        setAllConfig: async (config) => void cli.push(`set-all ${Object.keys(config).join(" ")}`),
        removeAllConfig: async (keys) => void cli.push(`rm-all ${keys.join(" ")}`),
      };
      const request = (stackName: string, more: Partial<RunRequest> = {}): RunRequest => ({
        op: "preview",
        workDir: dir,
        stateDir: path.join(dir, "state"),
        stackName,
        config: { "cloudplatform:apiKey": { value: "cp_live_s3cr3t", secret: true } },
        removeConfig: ["demo:kept"],
        ...more,
      });
      await writeFile(path.join(dir, "Pulumi.own.yaml"), written);
      await applyConfig(stack, request("own"));
      expect(cli).toEqual([]);
      const own = yaml.load(await readFile(path.join(dir, "Pulumi.own.yaml"), "utf8")) as { config: object };
      expect(Object.keys(own.config)).toEqual(["cloudplatform:baseUrl", "cloudplatform:apiKey"]);
      // A logged-in backend's stack, or a file it cannot open: the CLI.
      await writeFile(path.join(dir, "Pulumi.remote.yaml"), written);
      await applyConfig(stack, request("remote", { loggedIn: { env: {} } }));
      await writeFile(path.join(dir, "Pulumi.kms.yaml"), "secretsprovider: awskms://alias/x\n");
      await applyConfig(stack, request("kms"));
      expect(cli).toEqual([
        "set-all cloudplatform:apiKey",
        "rm-all demo:kept",
        "set-all cloudplatform:apiKey",
        "rm-all demo:kept",
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("encrypts as the CLI does: a fresh nonce each time, opened by the same key", () => {
    const key = passphraseKey(passphrase, salt);
    const [a, b] = [encryptValue(key, "same"), encryptValue(key, "same")];
    expect(a).not.toBe(b);
    expect([decryptValue(key, a), decryptValue(key, b)]).toEqual(["same", "same"]);
  });

  it("leaves to the CLI what is not plainly a passphrase stack's file this passphrase opens, or a key without namespace", () => {
    const set = { "cloudplatform:apiKey": { value: "x", secret: true } };
    expect(configuredSettings(written, "another-passphrase", set, [])).toBeUndefined();
    expect(
      configuredSettings(`secretsprovider: awskms://alias/x\nencryptedkey: abc\n`, passphrase, set, []),
    ).toBeUndefined();
    expect(configuredSettings("config: {}\n", passphrase, set, [])).toBeUndefined();
    expect(configuredSettings(written, passphrase, { apiKey: { value: "x" } }, [])).toBeUndefined();
    expect(configuredSettings("encryptionsalt: [unclosed\n", passphrase, set, [])).toBeUndefined();
  });
});

describe("the e2e runner's `pulumi version`, once per binary rather than per runner process", () => {
  it("gives what PulumiCommand.get gives, and runs the binary again only when it changed", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "runner-version-"));
    try {
      const binDir = path.join(dir, "bin");
      const runs = path.join(dir, "runs");
      const cache = path.join(dir, "cache");
      /** A stand-in for `pulumi` that notes each run and prints a version, as `pulumi version` does. */
      const install = (version: string) =>
        writeFile(path.join(binDir, "pulumi"), `#!/bin/sh\necho "$1" >> '${runs}'\necho ${version}\n`, {
          mode: 0o755,
        });
      const runCount = async () => (await readFile(runs, "utf8")).split("\n").filter(Boolean).length;
      await mkdir(binDir);
      await install("v3.259.0");
      const repoRoot = path.resolve(__dirname, "..", "..");
      const auto = loadAutomation(repoRoot);

      const first = await pulumiCommandOf(auto, repoRoot, binDir, cache);
      const second = await pulumiCommandOf(auto, repoRoot, binDir, cache);
      expect(await runCount()).toBe(1);
      const fromGet = await auto.PulumiCommand.get({ root: dir, skipVersionCheck: true });
      for (const made of [first, second]) {
        expect(made).toBeInstanceOf(auto.PulumiCommand);
        expect(made).toEqual(fromGet);
      }
      expect(second.version?.version).toBe("3.259.0");

      await install("v3.260.10");
      expect((await pulumiCommandOf(auto, repoRoot, binDir, cache)).version?.version).toBe("3.260.10");
      expect(await runCount()).toBe(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the e2e runner opening a stack: one CLI call, `stack init` for a new one, `stack select` otherwise", () => {
  /**
   * A stand-in for `pulumi` that notes each call and answers as the CLI does: `stack init` fails when
   * the stack exists somewhere (the file `exists`, whatever the backend's folders say), `stack select`
   * when it does not, with the CLI's own messages, which the Automation API maps to its errors.
   */
  let dir = "";
  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "runner-open-"));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function standIn() {
    const binDir = path.join(dir, "bin");
    const calls = path.join(dir, "calls");
    const exists = path.join(dir, "exists");
    await mkdir(binDir);
    const script = [
      "#!/bin/sh",
      `[ "$1" = version ] && { echo v3.259.0; exit 0; }`,
      `echo "$*" >> '${calls}'`,
      `if [ "$1 $2" = "stack init" ]; then`,
      `  [ -e '${exists}' ] && { echo "error: stack '$3' already exists" >&2; exit 255; }`,
      `  touch '${exists}'; exit 0`,
      "fi",
      `if [ "$1 $2" = "stack select" ]; then`,
      `  [ -e '${exists}' ] && exit 0`,
      `  echo "error: no stack named '$4' found" >&2; exit 255`,
      "fi",
      "exit 3",
    ].join("\n");
    await writeFile(path.join(binDir, "pulumi"), `${script}\n`, { mode: 0o755 });
    const repoRoot = path.resolve(__dirname, "..", "..");
    const auto = loadAutomation(repoRoot);
    const pulumiCommand = await pulumiCommandOf(auto, repoRoot, binDir, path.join(dir, "cache"));
    const open = async (name: string, ref: { stateDir: string; loggedIn?: { env: Record<string, string> } }) => {
      const workDir = path.join(dir, `work-${name}`);
      await mkdir(workDir);
      const stackRef = { workDir, stackName: "dev", ...ref };
      const program = async () => ({});
      await initOrSelectStack(
        auto,
        stackRef,
        { stackName: "dev", projectName: "infra", program },
        { workDir, pulumiCommand },
      );
    };
    const called = async () =>
      (await readFile(calls, "utf8").catch(() => ""))
        .split("\n")
        .filter(Boolean)
        .map((call) => call.replace(/ --non-interactive$/, ""));
    const forget = () => Promise.all([rm(calls, { force: true }), rm(exists, { force: true })]);
    return { open, calls: called, forget, exists };
  }

  it("initialises a stack its file:// backend has no checkpoint for, without the failing `stack select`", async () => {
    const cli = await standIn();
    await cli.open("new", { stateDir: path.join(dir, "state-new") });
    expect(await cli.calls()).toEqual(["stack init dev"]);
  });

  it("selects a stack whose checkpoint is there, plain or compressed", async () => {
    const cli = await standIn();
    for (const file of ["dev.json", "dev.json.gz"]) {
      await cli.forget();
      const stateDir = path.join(dir, `state-${file}`);
      const stacks = path.join(stateDir, "backend", ".pulumi", "stacks", "infra");
      await mkdir(stacks, { recursive: true });
      await writeFile(path.join(stacks, file), "{}");
      await writeFile(cli.exists, "");
      await cli.open(file, { stateDir });
      expect(await cli.calls()).toEqual(["stack select --stack dev"]);
    }
  });

  it("selects a stack that exists where it did not look, and opens another backend's as the SDK does", async () => {
    const cli = await standIn();
    // An older layout (stacks/dev.json, no project folder), or a stack made since it looked.
    await writeFile(cli.exists, "");
    await cli.open("elsewhere", { stateDir: path.join(dir, "state-elsewhere") });
    expect(await cli.calls()).toEqual(["stack init dev", "stack select --stack dev"]);

    await cli.forget();
    await cli.open("logged-in", { stateDir: path.join(dir, "state-logged-in"), loggedIn: { env: {} } });
    expect(await cli.calls()).toEqual(["stack select --stack dev", "stack init dev"]);
  });
});

describe("the Node.js language host's stand-in, compiling a program's TypeScript (transpiled.mts)", () => {
  it("gives typescript's own output, and loads typescript again only for another text", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "transpiled-"));
    try {
      const file = path.join(dir, "index.ts");
      const kept = path.join(dir, "node_modules", ".cache", "kept");
      const repoRequire = createRequire(path.join(__dirname, "..", "..", "package.json"));
      const asked: string[] = [];
      const load = Object.assign((id: string): unknown => (asked.push(id), repoRequire(id)), repoRequire);
      const typescript = repoRequire("typescript") as typeof import("typescript");
      const expected = (source: string) =>
        typescript.transpileModule(source, {
          fileName: "index.ts",
          compilerOptions: {
            module: typescript.ModuleKind.CommonJS,
            target: typescript.ScriptTarget.ES2022,
            esModuleInterop: true,
          },
        }).outputText;
      const compilations = () => asked.filter((id) => id === "typescript").length;

      const source = 'import * as pulumi from "@pulumi/pulumi";\nexport const n: number = 1;\n';
      await writeFile(file, source);
      expect(transpiled(file, load, kept)).toBe(expected(source));
      expect(transpiled(file, load, kept)).toBe(expected(source));
      expect(compilations()).toBe(1);
      expect(await readdir(kept)).toHaveLength(1);

      const edited = source.replace("= 1", "= 2");
      await writeFile(file, edited);
      expect(transpiled(file, load, kept)).toBe(expected(edited));
      expect(compilations()).toBe(2);

      // A folder it cannot keep the output in: compiled each time, nothing else changes.
      const blocked = path.join(dir, "a-file");
      await writeFile(blocked, "");
      expect(transpiled(file, load, path.join(blocked, "kept"))).toBe(expected(edited));
      expect(compilations()).toBe(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
