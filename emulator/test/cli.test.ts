import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseCliOptions, UsageError } from "../src/cli.js";

// The command line: one JSON line when ready, clean shutdown on signals (issue 3 "Running it").
const repo = resolve(__dirname, "../..");
const bin = join(repo, "emulator/bin/cloudplatform-emulator.js");

interface Ready {
  baseUrl: string;
  s3Url: string;
  apiUrl: string;
  apiKey: string;
  token: string;
  shape: string;
}

interface Launched {
  child: ChildProcess;
  ready: Ready;
  /** Every stdout line, to check that only the ready line is printed. */
  stdout: string[];
  exited: Promise<number | null>;
}

async function launch(args: string[]): Promise<Launched> {
  const child = spawn(process.execPath, [bin, ...args], { cwd: repo, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
  const stdout: string[] = [];
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<Ready>((done, fail) => {
    lines.on("line", (line) => {
      stdout.push(line);
      if (stdout.length === 1) done(JSON.parse(line) as Ready);
    });
    void exited.then((code) =>
      fail(
        new Error(`the emulator command exited with ${code} before it was ready; its stderr:\n${stderr.slice(-4000)}`),
      ),
    );
  });
  return { child, ready, stdout, exited };
}

const dirs: string[] = [];
beforeAll(() => {
  // The launcher runs the compiled dist/; build it as `npm run build` does.
  execFileSync(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-b", "emulator/tsconfig.json"], {
    cwd: repo,
    stdio: "pipe",
  });
}, 120_000);
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("cloudplatform-emulator command", () => {
  it("prints exactly one JSON line with working URLs and credentials, and stops cleanly on SIGTERM", async () => {
    const { child, ready, stdout, exited } = await launch(["--port", "0", "--quiet"]);
    expect(Object.keys(ready).sort()).toEqual(["apiKey", "apiUrl", "baseUrl", "s3Url", "shape", "token"]);
    expect(ready.shape).toBe("canonical");
    expect(ready.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.s3Url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.apiUrl).toBe(ready.baseUrl);
    const byKey = await fetch(`${ready.baseUrl}/dns/zones`, { headers: { authorization: ready.apiKey } });
    expect(byKey.status).toBe(200);
    const byToken = await fetch(`${ready.baseUrl}/dns/zones`, { headers: { authorization: `Bearer ${ready.token}` } });
    expect(byToken.status).toBe(200);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(stdout).toHaveLength(1);
  });

  it("keeps state across a restart with --data-dir after SIGINT", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "emu-cli-"));
    dirs.push(dataDir);
    const first = await launch(["--data-dir", dataDir, "--quiet"]);
    const created = await fetch(`${first.ready.baseUrl}/object-storage/buckets`, {
      method: "POST",
      headers: { authorization: first.ready.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ name: "cli-persisted", storage_class: "Standard" }),
    });
    expect(created.status).toBe(201);
    first.child.kill("SIGINT");
    expect(await first.exited).toBe(0);

    const second = await launch(["--data-dir", dataDir, "--quiet"]);
    try {
      expect(second.ready.apiKey).toBe(first.ready.apiKey);
      const list = await fetch(`${second.ready.baseUrl}/object-storage/buckets?name=cli-persisted`, {
        headers: { authorization: first.ready.apiKey },
      });
      expect(((await list.json()) as unknown[]).length).toBe(1);
    } finally {
      second.child.kill("SIGTERM");
      await second.exited;
    }
  });

  it("plays the shape it is given and says so in the ready line", async () => {
    const { child, ready, exited } = await launch(["--shape", "flat", "--quiet"]);
    try {
      expect(ready.shape).toBe("flat");
      const refused = await fetch(`${ready.baseUrl}/dns/zones`, { headers: { authorization: "cp-wrong" } });
      expect([refused.status, refused.headers.get("content-type")]).toEqual([403, "text/plain; charset=utf-8"]);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  });

  it("loses no acknowledged write to kill -9, nor a write whose answer it lost on purpose", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "emu-kill-"));
    dirs.push(dataDir);
    const first = await launch(["--data-dir", dataDir, "--quiet"]);
    const post = (ready: Ready, path: string, body?: unknown) =>
      fetch(`${ready.baseUrl}${path}`, {
        method: "POST",
        headers: { authorization: ready.apiKey, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    // Five streams of writes; a write counts once it was answered 201.
    const buckets: string[] = [];
    const credentials: string[] = [];
    let killed = false;
    const stream = async (n: number): Promise<void> => {
      for (let i = 0; !killed; i++) {
        try {
          const bucket = await post(first.ready, "/object-storage/buckets", { name: `kill-${n}-${i}` });
          if (bucket.status !== 201) continue;
          const { id, name } = (await bucket.json()) as { id: string; name: string };
          buckets.push(name);
          const cred = await post(first.ready, `/object-storage/buckets/${id}/credentials`);
          if (cred.status === 201) credentials.push(((await cred.json()) as { access_key_id: string }).access_key_id);
        } catch {
          return; // the connection died with the process
        }
      }
    };
    const streams = Promise.all([0, 1, 2, 3, 4].map(stream));
    while (buckets.length + credentials.length < 300) await new Promise((resolve) => setTimeout(resolve, 20));
    first.child.kill("SIGKILL");
    killed = true;
    await streams;
    await first.exited;

    const second = await launch(["--data-dir", dataDir, "--quiet"]);
    try {
      const inventory = (await (await fetch(`${second.ready.baseUrl}/_emulator/inventory`)).json()) as {
        buckets: { name: string }[];
        credentials: { access_key_id: string }[];
      };
      const names = new Set(inventory.buckets.map((b) => b.name));
      const keys = new Set(inventory.credentials.map((c) => c.access_key_id));
      expect(buckets.filter((name) => !names.has(name))).toEqual([]);
      expect(credentials.filter((key) => !keys.has(key))).toEqual([]);

      // A lost answer (§9.1) comes after the write is stored: a kill right after it keeps the zone.
      await fetch(`${second.ready.baseUrl}/_emulator/faults`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ loseRate: 1, routes: "POST /dns/zones" }),
      });
      await expect(post(second.ready, "/dns/zones", { name: "lost.example" })).rejects.toThrow();
      second.child.kill("SIGKILL");
      await second.exited;
    } finally {
      second.child.kill("SIGKILL");
    }
    const third = await launch(["--data-dir", dataDir, "--quiet"]);
    try {
      const zones = await fetch(`${third.ready.baseUrl}/dns/zones?name=lost.example`, {
        headers: { authorization: third.ready.apiKey },
      });
      expect(((await zones.json()) as unknown[]).length).toBe(1);
    } finally {
      third.child.kill("SIGTERM");
      await third.exited;
    }
  });

  it("prints help and refuses unknown options with exit code 2", () => {
    expect(execFileSync(process.execPath, [bin, "--help"], { encoding: "utf8" })).toContain("--data-dir");
    let status: number | null = null;
    try {
      execFileSync(process.execPath, [bin, "--no-such-option"], { stdio: "pipe" });
    } catch (err) {
      status = (err as { status: number }).status;
    }
    expect(status).toBe(2);
  });
});

describe("parseCliOptions", () => {
  it("maps every option", () => {
    const parsed = parseCliOptions([
      "--port=8080",
      "--s3-port",
      "9000",
      "--host",
      "::1",
      "--data-dir",
      "/tmp/x",
      "--balance-usd",
      "2.5",
      "--sync-wait-ms",
      "100",
      "--retention-days",
      "1",
      "--allow-loopback-urls",
      "--transcriber",
      "my-asr --fast",
      "--fault-rate",
      "503=0.1,429=0.05",
      "--latency-ms",
      "20",
      "--drop-rate",
      "0.01",
      "--lose-rate",
      "0.03",
      "--garble-rate",
      "0.02",
      "--fault-seed",
      "4294967295",
      "--rate-limit",
      "20/5",
      "--announce-rate-limit",
      "--rate-limit-status",
      "503",
      "--rate-limit-no-retry-after",
      "--shape",
      "by-name",
      "--page-size",
      "25",
      "--body-idle-timeout-ms",
      "5000",
    ]);
    expect(parsed.help).toBe(false);
    if (parsed.help) return;
    const { logger, ...rest } = parsed.options;
    expect(logger).toBeDefined();
    expect(rest).toEqual({
      port: 8080,
      s3Port: 9000,
      host: "::1",
      dataDir: "/tmp/x",
      balanceUsd: 2.5,
      syncWaitMs: 100,
      retentionDays: 1,
      allowLoopbackUrls: true,
      transcriber: "my-asr --fast",
      faults: {
        statusRates: { "503": 0.1, "429": 0.05 },
        latencyMs: 20,
        dropRate: 0.01,
        loseRate: 0.03,
        garbleRate: 0.02,
        seed: 4294967295,
      },
      rateLimit: { requestsPerSecond: 20, burst: 5, announce: true, status: 503, retryAfter: false },
      shape: "by-name",
      pageSize: 25,
      bodyIdleTimeoutMs: 5000,
    });
  });

  it("leaves unset options to the defaults", () => {
    const parsed = parseCliOptions([]);
    if (parsed.help) throw new Error("unexpected help");
    expect(parsed.options.port).toBeUndefined();
    expect(parsed.options.faults).toEqual({});
  });

  it.each([
    ["--port", "70000"],
    ["--port", "abc"],
    ["--drop-rate", "2"],
    ["--lose-rate", "1.5"],
    ["--garble-rate", "-0.1"],
    ["--fault-seed", "4294967296"],
    ["--fault-seed", "1.5"],
    ["--shape", "xml"],
    ["--page-size", "-1"],
    ["--page-size", "2.5"],
    ["--body-idle-timeout-ms", "1.5"],
    ["--fault-rate", "503"],
    ["--balance-usd", "-1"],
    ["--announce-rate-limit"],
    ["--rate-limit-status", "503"],
    ["--rate-limit-no-retry-after"],
    ["--bogus"],
  ])("refuses %s %s", (...args) => {
    expect(() => parseCliOptions(args.filter((a) => a !== undefined))).toThrow(UsageError);
  });
});
