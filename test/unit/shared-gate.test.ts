import { spawn } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, mkdtemp, rm, stat, utimes, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Pace, type Signal } from "../../provider/request/pace.js";
import {
  gateFor,
  gateName,
  meetingPlace,
  replaceStale,
  SharedGate,
  type Liveness,
} from "../../provider/request/shared-gate.js";
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
  limits: { maxRequestsPerSecond?: number; maxConcurrentRequests?: number } = {},
  name = "gate-a",
  liveness?: Liveness,
): { gate: SharedGate; pace: Pace } {
  const pace = new Pace(systemClock, limits);
  const gate = new SharedGate(
    pace,
    () => name,
    (n) => meetingPlace(n, folder),
    liveness,
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

/** Short limits, so that a silent peer is given up on in half a second. */
const quick: Liveness = { pingAfterMs: 100, giveUpAfterMs: 500 };

/** "done" if `work` ends within `ms`, "late" otherwise (a hang fails the test, not its timeout). */
async function within(ms: number, work: Promise<unknown>): Promise<"done" | "late"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), ms)));
  try {
    return await Promise.race([work.then(() => "done" as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A leader process reduced to the protocol (provider/request/shared-gate.ts): listens at argv[1],
 * gives each turn asked for at once (saying its rate is 50 a second), answers each question;
 * "ready" on stdout once listening.
 */
const protocolSpeaker = `
const net = require("node:net");
net.createServer((socket) => {
  let pending = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk) => {
    pending += chunk;
    for (let end = pending.indexOf("\\n"); end !== -1; end = pending.indexOf("\\n")) {
      const message = JSON.parse(pending.slice(0, end));
      pending = pending.slice(end + 1);
      if (message.a) socket.write(JSON.stringify({ g: message.a, rate: 50 }) + "\\n");
      if (message.p) socket.write(JSON.stringify({ o: 1 }) + "\\n");
    }
  });
}).listen(process.argv[1], () => process.stdout.write("ready\\n"));
`;

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

  it("learns the rate a follower's answer announced: the leader paces every process to it", async () => {
    const leader = processGate();
    const follower = processGate();
    await turns(leader.gate, 1);
    await turns(follower.gate, 1, { kind: "accepted", announcedRate: 20 });
    await expect.poll(() => leader.pace.currentRate).toBe(19);
    expect(follower.pace.currentRate).toBe(Infinity);
  });

  it("elects another leader when the leader goes, which starts at the rate the old one gave", async () => {
    const first = processGate({ maxRequestsPerSecond: 8 });
    const second = processGate();
    const third = processGate();
    await turns(first.gate, 1);
    const [, lastGiven] = await turns(second.gate, 2);
    await first.gate.leave(); // as when its process ends: the links to it are cut
    const [firstLed] = await turns(second.gate, 1); // elects: the second leads now
    expect(second.pace.currentRate).toBe(8);
    // The old leader's last turn may have just been sent: the new one's first comes an interval later.
    expect(firstLed! - lastGiven!).toBeGreaterThanOrEqual(120);
    const times = (await Promise.all([turns(second.gate, 4), turns(third.gate, 4)])).flat();
    // 8 a second: 125 ms apart (give or take a socket's round trip), whoever took the turn.
    expect(gaps(times).filter((gap) => gap < 60).length, gaps(times).join(" ")).toBeLessThanOrEqual(1);
    expect(Math.max(...times) - Math.min(...times)).toBeGreaterThan(7 * 110);
    expect(third.pace.currentRate).toBe(Infinity);
  });

  it("spaces the next turn from when a follower reports sending its turn, not from when it was given", async () => {
    const leader = processGate({ maxRequestsPerSecond: 10 });
    await turns(leader.gate, 1); // the first to call leads
    // A follower reduced to the protocol, whose event loop is held up 150 ms after its turn came.
    const socket = net.connect((await meetingPlace("gate-a", folder))!);
    await once(socket, "connect");
    socket.setEncoding("utf8");
    socket.write(`${JSON.stringify({ a: 1 })}\n`);
    await once(socket, "data");
    const given = performance.now();
    const next = turns(leader.gate, 1);
    await new Promise((resolve) => setTimeout(resolve, 150));
    socket.write(`${JSON.stringify({ t: 1 })}\n`);
    const [mine] = await next;
    // 100 ms after the follower's turn was given, it had not left yet: the leader's own goes a
    // little under an interval after the report (95 ms), so no two sendings are closer than that.
    expect(mine! - given).toBeGreaterThanOrEqual(150 + 90);
    socket.write(`${JSON.stringify({ f: 1, s: { kind: "accepted" } })}\n`);
    socket.destroy();
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

  it("waits on a leader that answers while it holds every turn (a long Retry-After)", async () => {
    const leader = processGate({}, "gate-a", quick);
    const follower = processGate({}, "gate-a", quick);
    await turns(leader.gate, 2);
    await turns(follower.gate, 1);
    const held = await leader.gate.acquire();
    leader.gate.release(held, { kind: "refused", retryAfterMs: 1_500 }); // 3 times `giveUpAfterMs`
    const before = performance.now();
    await turns(follower.gate, 1);
    // The leader gave no turn for 1.5 s but answered the follower's questions: it was waited for.
    expect(performance.now() - before).toBeGreaterThan(1_300);
    expect(follower.pace.currentRate).toBe(Infinity); // its own gate was never used
  });

  it("keeps to its own gate when the leader stops answering (a suspended process)", async () => {
    const place = (await meetingPlace("gate-a", folder))!;
    // A leader in another process, speaking the protocol: each turn given at once, each question answered.
    const leader = spawn(process.execPath, ["-e", protocolSpeaker, place], { stdio: ["ignore", "pipe", "inherit"] });
    try {
      await once(leader.stdout, "data"); // listening
      const { gate, pace } = processGate({}, "gate-a", quick);
      await turns(gate, 3);
      expect(pace.currentRate).toBe(Infinity); // the turns came from the other process…
      leader.kill("SIGSTOP"); // …which is suspended now: its socket still accepts, nobody answers
      const before = performance.now();
      const waited = await within(5_000, turns(gate, 1));
      // Given by this process's own gate once the leader had been silent for `giveUpAfterMs`.
      expect(waited).toBe("done");
      expect(performance.now() - before).toBeGreaterThan(quick.giveUpAfterMs - 50);
      expect(performance.now() - before).toBeLessThan(3_000);
      // And from then on without it, at the rate it last gave (50 a second: 5 turns in ~80 ms), not
      // unpaced, and not after another wait: the suspended leader is not followed again.
      expect(pace.currentRate).toBe(50);
      const next = performance.now();
      await turns(gate, 5);
      expect(performance.now() - next).toBeLessThan(400);
    } finally {
      leader.kill("SIGCONT");
      leader.kill("SIGKILL");
    }
  });

  it("takes back the turns of a follower that stops answering while it holds them", async () => {
    // One call in flight at most: a turn held by a silent follower would stop every other.
    const leader = processGate({ maxConcurrentRequests: 1 }, "gate-a", quick);
    await turns(leader.gate, 1);
    const place = (await meetingPlace("gate-a", folder))!;
    // A follower that takes a turn and then never speaks again (suspended, say).
    const silent = net.connect(place);
    await once(silent, "connect");
    silent.write(`${JSON.stringify({ a: 1, r: false })}\n`);
    await once(silent, "data"); // its turn: the one call in flight
    const hungUp = once(silent, "close");
    silent.resume(); // reads the leader's questions, answers none
    try {
      const before = performance.now();
      expect(await within(5_000, turns(leader.gate, 1))).toBe("done");
      expect(performance.now() - before).toBeGreaterThan(quick.giveUpAfterMs - 50);
      // The leader hung up on it.
      expect(await within(1_000, hungUp)).toBe("done");
    } finally {
      silent.destroy();
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
