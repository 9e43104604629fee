/**
 * Provider processes on one machine that call one platform address with one key, and the same
 * limits, pace their calls through one gate (issue 39, docs/limits.md). Stacks deploying at once
 * with one key are each their own `pulumi up` and provider process; with a gate each, they could
 * only find their shares of the key's limit through each other's refusals, and under a limit with
 * no burst they collided on most calls. Here the first process to call leads: it serves its gate to
 * the others over a local socket (in a folder only this user can open; a named pipe on Windows), and
 * they ask it for each turn and tell it what each answer said. In the simulation (`npm run
 * bench:pace -- 5 --shared`), 0-4 % of the calls refused in every shape where separate gates had
 * up to 50 %, and the stacks finish together (bench/README.md, "One gate for the processes sharing
 * a key").
 *
 * When the leader exits (its stack is done), the others elect a new one, which starts at the rate
 * the old one last gave. Anything amiss with the socket (no safe folder, an answer out of protocol,
 * repeated losses, a leader that stops answering: `Liveness`) leaves the process with its own gate,
 * as before sharing: sharing can only save refusals, never stop a call.
 */
import { createHash } from "node:crypto";
import { lstatSync, unlinkSync } from "node:fs";
import { lstat, mkdir, rmdir, unlink } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { systemClock, type Clock } from "../vocabulary.js";
import { digestOf, ownGate, type Gate, type Pace, type PaceLimits, type Signal, type Ticket } from "./pace.js";

/**
 * Part of every address: processes of a provider whose messages differ never meet. 2: the
 * liveness messages (`Liveness`) were added. 3: a follower reports each turn as it sends it
 * (`{"t":id}`), and the leader spaces the next turn from then (pace.ts, `sent`).
 */
const protocol = 3;
/**
 * Leaders lost in a row without a turn from any (a leader that accepts and drops every link, say)
 * before this process keeps its own gate for good.
 */
const mostLosses = 20;

/**
 * How long a peer may stay silent while this side waits on it. A leader suspended (Ctrl-Z on its
 * `pulumi up`, a debugger, a frozen VM) still has its socket accepted by the system, so without a
 * limit its followers would wait for their turns for as long as it stays stopped; a follower
 * suspended while holding turns would hold them at the leader. Whoever waits asks the other side
 * (`{"p":1}`, answered `{"o":1}` at once by a live process) after `pingAfterMs` of silence, and
 * drops the link after `giveUpAfterMs`: a leader's follower then keeps its own gate for good (its
 * leader's socket would still accept), a leader gives the silent follower's turns back.
 */
export interface Liveness {
  readonly pingAfterMs: number;
  readonly giveUpAfterMs: number;
}

/**
 * 10 s: far more than a live process takes to answer on a loaded machine (a garbage collection, a
 * busy event loop: milliseconds), little beside a deployment held for it.
 */
export const defaultLiveness: Liveness = { pingAfterMs: 1_000, giveUpAfterMs: 10_000 };

/**
 * Watches one link: `outstanding` tells whether this side waits on the peer; after `pingAfterMs`
 * of silence while it does, `ping` is sent; after `giveUpAfterMs`, `silent` is called (once).
 * `heard` is called at every message from the peer, `waiting` when this side starts to wait.
 */
function watchPeer(
  liveness: Liveness,
  outstanding: () => boolean,
  ping: () => void,
  silent: () => void,
): { heard: () => void; waiting: () => void; stop: () => void } {
  let heardAt = performance.now();
  let waitingSince = heardAt;
  let pingedAt = -Infinity;
  const timer = setInterval(
    () => {
      if (!outstanding()) return;
      const now = performance.now();
      const quiet = now - Math.max(heardAt, waitingSince);
      if (quiet >= liveness.giveUpAfterMs) {
        clearInterval(timer);
        silent();
      } else if (quiet >= liveness.pingAfterMs && now - pingedAt >= liveness.pingAfterMs) {
        pingedAt = now;
        ping();
      }
    },
    Math.max(10, Math.min(liveness.pingAfterMs, liveness.giveUpAfterMs) / 4),
  );
  // The watch never keeps a process alive: the link's own references decide that.
  timer.unref();
  return {
    heard: () => (heardAt = performance.now()),
    waiting: () => {
      if (!outstanding()) waitingSince = performance.now();
    },
    stop: () => clearInterval(timer),
  };
}

/** A socket message that does not follow the protocol: the link is dropped, the process goes on. */
class OutOfProtocol extends Error {}
/** The leader went away with this caller's turn: the caller asks the next leader. */
class LeaderGone extends Error {}

const signalKinds = new Set<string>(["accepted", "refused", "busy", "none"]);

/** One message to the peer: a JSON object on a line of its own. */
function writeLine(socket: net.Socket, message: Record<string, unknown>): void {
  socket.write(`${JSON.stringify(message)}\n`);
}

/** Asks the peer whether it is there (`Liveness`); a live peer answers `{"o":1}` at once. */
const question = { p: 1 };

/**
 * Newline-separated JSON objects from `socket`, to `take`; anything else drops the link. Every
 * message counts as the peer heard (`heard`); a question is answered here, and its answer goes no
 * further, on either side of a link.
 */
function readLines(socket: net.Socket, heard: () => void, take: (message: Record<string, unknown>) => void): void {
  let pending = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    pending += chunk;
    for (let end = pending.indexOf("\n"); end !== -1; end = pending.indexOf("\n")) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      try {
        const message: unknown = JSON.parse(line);
        if (typeof message !== "object" || message === null || Array.isArray(message)) throw new OutOfProtocol();
        heard();
        const fields = message as Record<string, unknown>;
        if (fields["p"] === 1) writeLine(socket, { o: 1 });
        else if (fields["o"] !== 1) take(fields);
      } catch {
        socket.destroy();
        return;
      }
    }
    // A peer that never ends a line is not one of ours.
    if (pending.length > 4096) socket.destroy();
  });
}

const isId = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) > 0;

function signalOf(value: unknown): Signal {
  const s = value as { kind?: unknown; retryAfterMs?: unknown; announcedRate?: unknown } | null;
  if (typeof s !== "object" || s === null || typeof s.kind !== "string" || !signalKinds.has(s.kind)) {
    throw new OutOfProtocol();
  }
  if (s.kind === "none") return { kind: "none" };
  // Optional: a process of an earlier version of this protocol sends none.
  const rate = s.announcedRate;
  if (rate !== undefined && !(typeof rate === "number" && Number.isFinite(rate) && rate > 0)) throw new OutOfProtocol();
  const announced = rate === undefined ? {} : { announcedRate: rate };
  if (s.kind !== "refused") return { kind: s.kind as "accepted" | "busy", ...announced };
  const ms = s.retryAfterMs;
  if (ms === undefined) return { kind: "refused", ...announced };
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) throw new OutOfProtocol();
  return { kind: "refused", retryAfterMs: ms, ...announced };
}

/**
 * Serves `gate` to the processes that connect: their turns are taken in the same queue as this
 * process's own. A turn held by a process that went away is given back as unanswered.
 */
function serve(server: net.Server, gate: Pace, liveness: Liveness, stopped: () => void): () => void {
  const links = new Set<net.Socket>();
  server.on("connection", (socket) => {
    links.add(socket);
    // The leader's own work, not its followers', decides when its process ends.
    socket.unref();
    socket.on("error", () => undefined);
    const held = new Map<number, Ticket>();
    let gone = false;
    // A follower silent while it holds turns (suspended, say) would keep them from the others.
    const watch = watchPeer(
      liveness,
      () => held.size > 0,
      () => writeLine(socket, question),
      () => socket.destroy(),
    );
    socket.on("close", () => {
      gone = true;
      watch.stop();
      links.delete(socket);
      // Released, a turn counts as sent (pace.ts): the next is not held up waiting for its report.
      for (const ticket of held.values()) gate.release(ticket, { kind: "none" });
      held.clear();
    });
    readLines(socket, watch.heard, (message) => {
      if (isId(message["a"])) {
        const id = message["a"];
        void gate.acquire(message["r"] === true, true).then((ticket) => {
          if (gone) return gate.release(ticket, { kind: "none" });
          watch.waiting();
          held.set(id, ticket);
          const rate = gate.currentRate;
          writeLine(socket, { g: id, rate: Number.isFinite(rate) ? rate : null });
        });
      } else if (isId(message["t"])) {
        const ticket = held.get(message["t"]);
        if (ticket !== undefined) gate.sent(ticket);
      } else if (isId(message["f"])) {
        const ticket = held.get(message["f"]);
        if (ticket === undefined) return;
        held.delete(message["f"]);
        gate.release(ticket, signalOf(message["s"]));
      } else {
        throw new OutOfProtocol();
      }
    });
  });
  // Stops serving: the followers' links are cut, and they elect another leader.
  return () => {
    stopped();
    // Closing the server removes its socket file.
    server.close();
    for (const socket of links) socket.destroy();
  };
}

/** A follower's connection to the leader: each turn asked for, and answered with the leader's rate. */
class Link {
  private nextId = 1;
  private readonly waiting = new Map<number, { go: (rate: number | undefined) => void; lost: (e: Error) => void }>();
  private closed = false;
  private readonly watch: ReturnType<typeof watchPeer>;

  constructor(
    private readonly socket: net.Socket,
    liveness: Liveness,
    /** `silent`: the leader stopped answering while turns were awaited (it may still accept links). */
    onClose: (silent: boolean) => void,
  ) {
    let silent = false;
    this.watch = watchPeer(
      liveness,
      () => this.waiting.size > 0,
      () => writeLine(socket, question),
      () => {
        silent = true;
        socket.destroy();
      },
    );
    // Held only while a turn is awaited: a process done with its calls is not kept alive by the link.
    socket.unref();
    socket.on("error", () => undefined);
    socket.on("close", () => {
      this.closed = true;
      this.watch.stop();
      for (const waiter of this.waiting.values()) waiter.lost(new LeaderGone());
      this.waiting.clear();
      onClose(silent);
    });
    readLines(socket, this.watch.heard, (message) => {
      const id = message["g"];
      const rate = message["rate"];
      if (!isId(id) || !(rate === null || (typeof rate === "number" && rate > 0))) throw new OutOfProtocol();
      const waiter = this.waiting.get(id);
      this.waiting.delete(id);
      if (this.waiting.size === 0) socket.unref();
      waiter?.go(rate ?? undefined);
    });
  }

  turn(retry: boolean): Promise<{ id: number; rate: number | undefined }> {
    if (this.closed) return Promise.reject(new LeaderGone());
    const id = this.nextId++;
    this.watch.waiting();
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { go: (rate) => resolve({ id, rate }), lost: reject });
      this.socket.ref();
      writeLine(this.socket, { a: id, r: retry });
    });
  }

  /** The turn `id` is being sent now: the leader spaces the next from this. */
  sent(id: number): void {
    if (!this.closed) writeLine(this.socket, { t: id });
  }

  release(id: number, signal: Signal): void {
    if (!this.closed) writeLine(this.socket, { f: id, s: signal });
  }

  close(): void {
    this.socket.destroy();
  }
}

type Role =
  | { readonly kind: "alone" }
  | { readonly kind: "leader"; readonly stop: () => void }
  | { readonly kind: "follower"; readonly link: Link };

const alone: Role = { kind: "alone" };

function errorCode(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

function connectTo(address: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(address);
    socket.once("connect", () => {
      socket.removeListener("error", reject);
      resolve(socket);
    });
    socket.once("error", reject);
  });
}

function listenOn(address: string): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(address, () => {
      server.removeListener("error", reject);
      server.on("error", () => undefined);
      // The leader's own work decides when its process ends, not the gate it serves.
      server.unref();
      resolve(server);
    });
  });
}

/**
 * The socket files this process leads at, with their inodes. A leader's file outlives a process
 * that exits without closing its server; the next process to call finds it refused and replaces it
 * (`elect`), but a folder of stale files is untidy: at exit each is removed, if it is still this
 * process's (not one a later leader put there).
 */
const ledAt = new Map<string, number>();
let removingAtExit = false;

function removeAtExit(place: string, ino: number): void {
  if (!removingAtExit) {
    removingAtExit = true;
    process.once("exit", () => {
      for (const [file, own] of ledAt) {
        try {
          if (lstatSync(file).ino === own) unlinkSync(file);
        } catch {
          // Gone already.
        }
      }
    });
  }
  ledAt.set(place, ino);
}

/**
 * Replaces the stale socket at `place` by one `lead` makes, if this process takes the lock (a
 * folder beside it: mkdir is atomic) and the socket is still stale once it holds it (another
 * process may have replaced it meanwhile: then it follows that one). Undefined when another holds
 * the lock: the caller tries again shortly. A lock older than a few seconds was left by a process
 * that died holding it, and is removed.
 */
export async function replaceStale(place: string, lead: () => Promise<Role>): Promise<Role | undefined> {
  const lock = `${place}.lock`;
  try {
    await mkdir(lock);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
    const held = await lstat(lock).catch(() => undefined);
    if (held !== undefined && Date.now() - held.mtimeMs > 5_000) await rmdir(lock).catch(() => undefined);
    return undefined;
  }
  try {
    const live = await connectTo(place).catch(() => undefined);
    if (live !== undefined) {
      live.destroy();
      return undefined;
    }
    await unlink(place).catch(() => undefined);
    return await lead();
  } catch (error) {
    // A process that found no socket at all listened first: the caller follows it.
    if (errorCode(error) === "EADDRINUSE") return undefined;
    throw error;
  } finally {
    await rmdir(lock).catch(() => undefined);
  }
}

/** Who the processes are that may share: one user (a number on POSIX, a digest of the name on Windows). */
function userTag(): string {
  if (process.getuid !== undefined) return String(process.getuid());
  let name = "";
  try {
    name = os.userInfo().username;
  } catch {
    // No user name to be had (some containers): one tag for all, as the pipe's own access rules then decide.
  }
  return createHash("sha256").update(name).digest("hex").slice(0, 12);
}

/**
 * Where the processes sharing the gate named `name` meet: a socket in `folder` (created for this
 * user only), a named pipe on Windows; undefined when the folder is not this user's alone, since a
 * socket there could be another user's.
 */
export async function meetingPlace(
  name: string,
  folder = path.join(os.tmpdir(), `cloudplatform-${userTag()}`),
): Promise<string | undefined> {
  if (process.platform === "win32") return `\\\\.\\pipe\\cloudplatform-gate-${userTag()}-${name}`;
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const info = await lstat(folder);
  if (!info.isDirectory() || info.uid !== process.getuid?.() || (info.mode & 0o077) !== 0) return undefined;
  // Unix socket paths are short (104 bytes on macOS): the name is a digest.
  const place = path.join(folder, `gate-${name}.sock`);
  return Buffer.byteLength(place) < 100 ? place : undefined;
}

/** The name of the gate for `origin`, a credential's digest and `limits`: no credential in a file name. */
export function gateName(origin: string, credentialDigest: string, limits: PaceLimits): string {
  const limitsKey = [limits.maxRequestsPerSecond ?? null, limits.maxConcurrentRequests ?? null];
  return createHash("sha256")
    .update(JSON.stringify([protocol, origin, credentialDigest, limitsKey]))
    .digest("hex")
    .slice(0, 24);
}

/**
 * The gate of this process for one address and key, shared with the other processes of this user
 * that use the same (the module comment). `local` is this process's own gate: the one it serves
 * when it leads, and the one it uses when it cannot share.
 */
export class SharedGate implements Gate {
  private role: Promise<Role> | undefined;
  private losses = 0;
  /** The name the current role was elected under: new limits mean another gate. */
  private roleName = "";
  /** The leader's rate at the last turn it gave: where this process starts if it leads next. */
  private leaderRate: number | undefined;
  private readonly remote = new WeakMap<Ticket, { readonly link: Link; readonly id: number }>();
  /** The link of the current role, while it is a follower's: its close clears the role. */
  private following: Link | undefined;
  /**
   * A leader stopped answering while this process waited on it (`Liveness`): its socket may still
   * accept, so electing again would follow it again; this process keeps its own gate from then on.
   */
  private silentLeader = false;

  constructor(
    private readonly local: Pace,
    /** The gate's name for the limits in force (`gateName`). */
    private readonly name: () => string,
    private readonly place: (name: string) => Promise<string | undefined> = meetingPlace,
    private readonly liveness: Liveness = defaultLiveness,
  ) {}

  async acquire(retry = false): Promise<Ticket> {
    for (;;) {
      const role = await this.currentRole();
      if (role.kind !== "follower") return this.local.acquire(retry);
      try {
        const { id, rate } = await role.link.turn(retry);
        this.leaderRate = rate;
        this.losses = 0;
        const ticket: Ticket = { at: Date.now() };
        this.remote.set(ticket, { link: role.link, id });
        return ticket;
      } catch (error) {
        if (!(error instanceof LeaderGone)) throw error;
        // The link's close has cleared the role: the next round elects again.
      }
    }
  }

  sent(ticket: Ticket): void {
    const via = this.remote.get(ticket);
    if (via === undefined) this.local.sent(ticket);
    else via.link.sent(via.id);
  }

  release(ticket: Ticket, signal: Signal): void {
    const via = this.remote.get(ticket);
    if (via === undefined) this.local.release(ticket, signal);
    else via.link.release(via.id, signal);
  }

  /** Leaves the gate it shares (a test's end; new limits): the next call elects again. */
  async leave(): Promise<void> {
    const role = await this.role;
    this.role = undefined;
    this.following = undefined;
    if (role?.kind === "leader") role.stop();
    if (role?.kind === "follower") role.link.close();
  }

  private async currentRole(): Promise<Role> {
    const name = this.name();
    if (this.role !== undefined && name !== this.roleName) await this.leave();
    if (this.role === undefined) {
      this.roleName = name;
      const keepOwn = this.losses >= mostLosses || this.silentLeader;
      this.role = keepOwn ? Promise.resolve(alone) : this.elect(name).catch(() => alone);
    }
    return this.role;
  }

  private async elect(name: string): Promise<Role> {
    const place = await this.place(name);
    if (place === undefined) return alone;
    for (let tries = 0; tries < 50; tries++) {
      try {
        return this.follow(await connectTo(place));
      } catch (error) {
        const code = errorCode(error);
        if (code === "ECONNREFUSED" && process.platform !== "win32") {
          // A socket no process listens on: its leader ended without closing it. Its followers
          // all find it so at once; only the one holding the lock replaces it (an unlink of
          // another's fresh socket would leave two leaders, each pacing alone).
          const taken = await replaceStale(place, () => this.lead(place));
          if (taken !== undefined) return taken;
          await new Promise((resume) => setTimeout(resume, 10 + 20 * Math.random()));
          continue;
        }
        if (code !== "ENOENT") return alone;
      }
      try {
        return await this.lead(place);
      } catch (error) {
        // Another process became the leader in between: follow it.
        if (errorCode(error) !== "EADDRINUSE") return alone;
      }
    }
    return alone;
  }

  /** Listens at `place` and serves this process's gate there, from the rate the last leader gave. */
  private async lead(place: string): Promise<Role> {
    const server = await listenOn(place);
    if (process.platform !== "win32") removeAtExit(place, (await lstat(place)).ino);
    const stop = serve(server, this.local, this.liveness, () => ledAt.delete(place));
    if (this.leaderRate !== undefined) this.local.resume(this.leaderRate);
    return { kind: "leader", stop };
  }

  private follow(socket: net.Socket): Role {
    const link: Link = new Link(socket, this.liveness, (silent) => {
      if (silent) {
        this.silentLeader = true;
        // Alone from now on, at the rate the leader last gave rather than unpaced.
        if (this.leaderRate !== undefined) this.local.resume(this.leaderRate);
      }
      if (this.following !== link) return;
      this.following = undefined;
      this.role = undefined;
      this.losses += 1;
    });
    this.following = link;
    return { kind: "follower", link };
  }
}

/** The shared gates of this process, per address and credential (as pace.ts's own gates). */
const sharedGates = new Map<string, SharedGate>();

/**
 * `CLOUDPLATFORM_SHARED_GATE=0` (or `false`, `off`) keeps each process to its own gate: for a
 * process that must not depend on others of the same user (docs/limits.md).
 */
function sharingOff(): boolean {
  return /^(0|false|off|no)$/i.test(process.env["CLOUDPLATFORM_SHARED_GATE"]?.trim() ?? "");
}

/**
 * The gate requests to `origin` with `credential` pass: on the system clock, shared with the other
 * processes of this user calling the same address with the same key and limits (the module comment);
 * otherwise (a test's clock, sharing turned off) this process's own.
 */
export function gateFor(clock: Clock, origin: string, credential: string, limits: PaceLimits): Gate {
  const digest = digestOf(credential);
  const key = `${origin} ${digest}`;
  const pace = ownGate(clock, key, limits);
  if (clock !== systemClock || sharingOff()) return pace;
  let gate = sharedGates.get(key);
  if (gate === undefined) {
    gate = new SharedGate(pace, () => gateName(origin, digest, pace.limitsInForce));
    sharedGates.set(key, gate);
  }
  return gate;
}
