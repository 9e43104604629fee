import { chmod, mkdir, mkdtemp, rm, stat, utimes, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Pace, type Signal } from "../../provider/request/pace.js";
import { gateFor, gateName, meetingPlace, replaceStale, SharedGate } from "../../provider/request/shared-gate.js";
import { systemClock, type Clock } from "../../provider/vocabulary.js";

// Processes of one user calling one address with one key share one pacing gate over a local socket
// (provider/request/shared-gate.ts, issue 39). Each SharedGate here stands for one provider
// process: its own Pace, the same meeting place. What one process's gate would do alone is
// checked against what the shared one does.

let folder: string;
const open: SharedGate[] = [];

beforeEach(async () => {
  folder = await mkdtemp(path.join(tmpdir(), "shared-gate-"));
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.leave()));
  await rm(folder, { recursive: true, force: true });
});

/** One process's gate: its own Pace (`limits`), meeting the others in the test's folder. */
function processGate(
  limits: { maxRequestsPerSecond?: number } = {},
  name = "gate-a",
): { gate: SharedGate; pace: Pace } {
  const pace = new Pace(systemClock, limits);
  const gate = new SharedGate(
    pace,
    () => name,
    (n) => meetingPlace(n, folder),
  );
  open.push(gate);
  return { gate, pace };
}

/** Takes `n` turns one after the other, each answered with `signal`; the times they were given. */
async function turns(gate: SharedGate, n: number, signal: Signal = { kind: "accepted" }): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const ticket = await gate.acquire();
    times.push(performance.now());
    gate.release(ticket, signal);
  }
  return times;
}

const gaps = (times: readonly number[]) =>
  [...times].sort((a, b) => a - b).flatMap((t, i, all) => (i === 0 ? [] : [t - all[i - 1]!]));

describe("a gate shared by the processes using one key", () => {
  it("paces every process's turns in one queue, at the leader's rate", async () => {
    const leader = processGate({ maxRequestsPerSecond: 20 });
    const follower = processGate();
    await turns(leader.gate, 1); // the first to call leads
    // Alone, the follower's own gate (no limit known) would let 10 turns through at once.
    const [mine, theirs] = await Promise.all([turns(leader.gate, 10), turns(follower.gate, 10)]);
    const all = [...mine!, ...theirs!];
    // 20 turns at 20 a second, one queue: every turn ~50 ms after the one before, whoever took it
    // (a follower's turn reaches it a socket's round trip late, so a gap may look shorter). Alone,
    // the follower's 10 would come at once: 9 gaps of about 0.
    expect(gaps(all).filter((gap) => gap < 25).length, gaps(all).join(" ")).toBeLessThanOrEqual(2);
    expect(Math.max(...all) - Math.min(...all)).toBeGreaterThan(19 * 45);
    expect(follower.pace.currentRate).toBe(Infinity); // its own gate was never used
  });

  it("learns from a follower's refusals: its Retry-After holds every process", async () => {
    const leader = processGate();
    const follower = processGate();
    await turns(leader.gate, 3);
    const ticket = await follower.gate.acquire();
    follower.gate.release(ticket, { kind: "refused", retryAfterMs: 400 });
    // The leader's gate had its refusal: now paced, and paused.
    await expect.poll(() => leader.pace.currentRate).toBeLessThan(Infinity);
    const before = performance.now();
    await turns(leader.gate, 1);
    expect(performance.now() - before).toBeGreaterThan(300);
  });

  it("elects another leader when the leader goes, which starts at the rate the old one gave", async () => {
    const first = processGate({ maxRequestsPerSecond: 8 });
    const second = processGate();
    const third = processGate();
    await turns(first.gate, 1);
    await turns(second.gate, 2);
    await first.gate.leave(); // as when its process ends: the links to it are cut
    await turns(second.gate, 1); // elects: the second leads now
    expect(second.pace.currentRate).toBe(8);
    const times = (await Promise.all([turns(second.gate, 4), turns(third.gate, 4)])).flat();
    // 8 a second: 125 ms apart (give or take a socket's round trip), whoever took the turn.
    expect(gaps(times).filter((gap) => gap < 60).length, gaps(times).join(" ")).toBeLessThanOrEqual(1);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(7 * 110);
    expect(third.pace.currentRate).toBe(Infinity);
  });

  it("gives a turn that waited on a leader that went to the next leader", async () => {
    const first = processGate();
    const second = processGate();
    await turns(first.gate, 2);
    const held = await first.gate.acquire();
    first.gate.release(held, { kind: "refused", retryAfterMs: 5_000 }); // every turn waits 5 s now
    let given = false;
    const waiting = second.gate.acquire().then((t) => ((given = true), t));
    await new Promise((r) => setTimeout(r, 100));
    expect(given).toBe(false); // held by the leader's pause
    const gone = performance.now();
    await first.gate.leave();
    const ticket = await waiting;
    second.gate.release(ticket, { kind: "accepted" });
    // Not the 5 s the old leader would have made it wait: the second leads with its own gate.
    expect(performance.now() - gone).toBeLessThan(2_000);
  });

  it("takes over a socket left by a leader that ended without closing it", async () => {
    const place = await meetingPlace("gate-a", folder);
    expect(place).toBeDefined();
    await writeFile(place!, ""); // nothing listens there: connecting is refused
    const { gate } = processGate();
    await turns(gate, 1);
    expect((await stat(place!)).isSocket()).toBe(true);
    const other = processGate();
    await turns(other.gate, 1);
  });

  it("lets one process only replace a stale socket, however many find it at once", async () => {
    const place = (await meetingPlace("gate-a", folder))!;
    await writeFile(place, ""); // stale: connecting is refused
    const servers: net.Server[] = [];
    const lead = async () => {
      const server = net.createServer();
      await new Promise<void>((resolve, reject) => server.once("error", reject).listen(place, resolve));
      servers.push(server);
      return { kind: "alone" } as const;
    };
    try {
      // Without the lock, a late unlink would remove the first leader's fresh socket for a second.
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => replaceStale(place, lead)));
      expect(outcomes.filter((o) => o !== undefined)).toHaveLength(1);
      expect(servers).toHaveLength(1);
      expect((await stat(place)).isSocket()).toBe(true);
      // The socket is live now: a process that takes the lock later follows it instead.
      expect(await replaceStale(place, lead)).toBeUndefined();
      expect(servers).toHaveLength(1);
    } finally {
      for (const server of servers) server.close();
    }
  });

  it("waits for a lock another process holds, and removes one a dead process left", async () => {
    const place = (await meetingPlace("gate-a", folder))!;
    await writeFile(place, "");
    const lead = async () => ({ kind: "alone" }) as const;
    await mkdir(`${place}.lock`);
    expect(await replaceStale(place, lead)).toBeUndefined(); // held: try again later
    const old = new Date(Date.now() - 60_000);
    await utimes(`${place}.lock`, old, old);
    expect(await replaceStale(place, lead)).toBeUndefined(); // this try removes the dead lock…
    expect(await replaceStale(place, lead)).toEqual({ kind: "alone" }); // …and the next takes it
  });

  it("gates with other limits or another key do not meet", () => {
    const a = gateName("http://a", "k1", {});
    expect(gateName("http://a", "k1", {})).toBe(a);
    expect(gateName("http://a", "k1", { maxRequestsPerSecond: 5 })).not.toBe(a);
    expect(gateName("http://a", "k2", {})).not.toBe(a);
    expect(gateName("http://b", "k1", {})).not.toBe(a);
    expect(a).toMatch(/^[0-9a-f]{24}$/); // a digest: no credential in a file name
  });

  it("is not shared in a folder other users can open", async () => {
    await chmod(folder, 0o755);
    expect(await meetingPlace("gate-a", folder)).toBeUndefined();
    await chmod(folder, 0o700);
    expect(await meetingPlace("gate-a", folder)).toBe(path.join(folder, "gate-gate-a.sock"));
  });

  it("keeps to its own gate after a leader that answers out of protocol", async () => {
    const place = (await meetingPlace("gate-a", folder))!;
    let links = 0;
    const liar = net.createServer((socket) => {
      links += 1;
      socket.on("data", () => socket.write("not json\n"));
    });
    await new Promise<void>((r) => liar.listen(place, r));
    try {
      const { gate } = processGate();
      await turns(gate, 3); // each turn is given, by its own gate in the end
      expect(links).toBeGreaterThan(0);
      expect(links).toBeLessThanOrEqual(21);
    } finally {
      liar.close();
    }
  });

  it("is this process's own gate on a test's clock, or with CLOUDPLATFORM_SHARED_GATE=0", () => {
    const clock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) };
    expect(gateFor(clock, "http://own", "key", {})).toBeInstanceOf(Pace);
    const saved = process.env["CLOUDPLATFORM_SHARED_GATE"];
    try {
      process.env["CLOUDPLATFORM_SHARED_GATE"] = "0";
      expect(gateFor(systemClock, "http://own", "key", {})).toBeInstanceOf(Pace);
      delete process.env["CLOUDPLATFORM_SHARED_GATE"];
      expect(gateFor(systemClock, "http://own", "key", {})).toBeInstanceOf(SharedGate);
    } finally {
      if (saved === undefined) delete process.env["CLOUDPLATFORM_SHARED_GATE"];
      else process.env["CLOUDPLATFORM_SHARED_GATE"] = saved;
    }
  });
});
