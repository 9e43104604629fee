/**
 * The pacing gate every sending of a request passes, retries included: one per provider process,
 * platform address and credential (`paceFor`), shared by every resource's calls, because a
 * platform's rate limit counts the project's requests, not one resource's (issue 39, docs/limits.md);
 * and shared with the other processes on the machine that use the same key (shared-gate.ts).
 *
 * Without settings it only bounds the requests in flight (`firstWindow`) until the platform refuses
 * one with 429. Then every caller waits out the `Retry-After` together (instead of each retrying on
 * its own, which multiplies the refusals), and the gate paces requests at the rate the platform
 * accepted, a little under it. It lowers that rate on each refusal, comes back to just under the
 * rate refused, holds there for a plateau that grows while refusals keep coming, then probes above
 * it (multiplicative decrease, as TCP and the AWS SDK's adaptive retry mode do; the plateau, as
 * TCP CUBIC's), so that it finds a limit it was never told and shares it with other processes using
 * the same key; a short refusal of such a probe holds only its own request (`holdFor`). A 503
 * eases a known rate off for a while, without taking it for the limit, unless 503s come as thick
 * as a limit's refusals (`busyLimitCount`). A request sent again goes before first sendings.
 * `maxRequestsPerSecond` starts it at that rate, which it never exceeds; `maxConcurrentRequests`
 * bounds the requests in flight. A rate the platform announces in its answers' headers
 * (rate-headers.ts) sets it at 95 % of that rate without a refusal, and caps it there.
 */
import { createHash } from "node:crypto";
import { defaultRetryPolicy } from "../retry.js";
import { announcedRate, refusalWaitMs } from "./rate-headers.js";
import type { Clock } from "../vocabulary.js";
import type { Answer } from "./types.js";

/** The settings a user can give the gate (cloudplatform:maxRequestsPerSecond, …). */
export interface PaceLimits {
  readonly maxRequestsPerSecond?: number;
  readonly maxConcurrentRequests?: number;
}

/**
 * What came of one sending, for the gate to learn from. `announcedRate`: the requests per second
 * the answer's rate-limit headers allow (rate-headers.ts), when it said.
 */
export type Signal =
  /** An answer that is not a refusal, whatever its status: the platform accepted the request. */
  | { readonly kind: "accepted"; readonly announcedRate?: number }
  /** 429: over the limit; `retryAfterMs` from its header (or the announced reset), when it had one. */
  | { readonly kind: "refused"; readonly retryAfterMs?: number; readonly announcedRate?: number }
  /** 503: the platform is overloaded. */
  | { readonly kind: "busy"; readonly announcedRate?: number }
  /** No answer (a connection error, a timeout): says nothing of the limit. */
  | { readonly kind: "none" };

/** One sending let through: when, so that a late answer to an old request does not lower the rate twice. */
export interface Ticket {
  readonly at: number;
}

/** What a sending passes: this process's own `Pace`, or one shared with other processes (shared-gate.ts). */
export interface Gate {
  acquire(retry?: boolean): Promise<Ticket>;
  /** The sending the turn was for has left (`paced`): the next turn is spaced from now. */
  sent(ticket: Ticket): void;
  release(ticket: Ticket, signal: Signal): void;
}

/** A refusal keeps this share of the rate; a 503 keeps `busyDecrease` (`ease`). */
const refusedDecrease = 0.85;
const busyDecrease = 0.9;
/**
 * After a cut the rate comes back quickly (×1.25 a second) to this share of the rate that was
 * refused, not to that rate itself: the limit is under it, and coming back to it only meets the
 * same refusal again (on a platform with no burst, every second).
 */
const settleShare = 0.95;
const recoverIncrease = 1.25;
/**
 * Settled, the rate is held for a plateau before it probes past the ceiling: 2 s, doubled (up to
 * 8 s) at each refusal that comes within two plateaus of the previous one, halved at one that comes
 * later. Stacks sharing a key each probe on their own, and a probe's refusal falls on whichever
 * stack sends next: refused often, each probes less often, so that n stacks do not refuse n times
 * as much as one. A longer plateau refuses less but leaves a share another stack freed unused for
 * longer: 16 s took 1.14× the ideal time with three stacks, 8 s 1.08-1.12× (bench/README.md, "Rate
 * limit"). Issue 39's goals are 10 % refused and 1.15× the ideal.
 */
const firstPlateauMs = 2_000;
const longestPlateauMs = 8_000;
/**
 * Probing raises the rate by 5 % in its first second and 10 % in each after, so that a share
 * another stack freed (it finished) is found in a few seconds. The step stops growing there: a
 * probe past the limit is refused on whichever stack sends next, and steps that kept doubling
 * (20 %, 40 %…) overshot by so much that stacks sharing a key were refused 1.3 to 1.5 times as
 * often (the simulation, `npm run bench:pace`, at 5 requests a second: 11.6 % against 8.9 % of the
 * requests served for three stacks, 35 % against 24 % for eight). A limit far above the first
 * estimate is found before this, while the rate still grows by half every second (`startIncrease`).
 */
const firstProbeStep = 0.05;
const largestProbeStep = 0.1;
/**
 * After the first refusal, the rate the platform accepted in the last second may be only its burst:
 * until a refusal at a paced rate says where the limit is, the rate grows by half every second.
 */
const startIncrease = 1.5;
/**
 * A wait longer than a request's whole retry budget (an hour's window spent) pauses nobody: the
 * refused request gives up at once with its error, and each other fails the same way at its own
 * refusal, rather than every call of the deployment hanging until then.
 */
const longestPauseMs = defaultRetryPolicy.maxTotalMs;
/** The longest `Retry-After` a paced gate's probe may meet without holding every call (`holdFor`). */
const shortRefusalMs = 1_000;
/**
 * 503s are taken for a limit's refusals, from then on, once `busyLimitCount` of the last
 * `recentAnswers` answers were 503s: a front that refuses with 503 and no `Retry-After` (nginx's
 * `limit_req` as it comes) is then paced as a 429's is. Taken for a busy platform (`ease`), a
 * gate under such a front never learned a rate: the engine sent at full speed, 1.2 to 16 requests
 * were refused for each served, and requests ran out of their attempts (up to 70 % of them in the
 * pacing simulation; bench/README.md, "A limit that refuses with 503"). Sporadic 503s (the soak's
 * one in ten) come so thick with a chance of about one in two million at each.
 */
const recentAnswers = 16;
const busyLimitCount = 10;
/** The rate never goes below this many requests per second. */
const floorRate = 0.5;
/** How far back the requests the platform accepted are counted to measure the rate it allows. */
const windowMs = 1_000;
/**
 * While no rate is known, requests in flight grow by one with each accepted (doubling every round
 * trip, as TCP's slow start), from this many once the platform has answered: a fast platform
 * without a limit reaches the engine's parallelism in a few round trips, and a limited one refuses
 * at most this many at once before the gate learns its rate. Not 8, as it was: the engine's first
 * wave then met a limit with no burst 8 calls at a time, of which it refused 6 to 8 before the
 * gate knew a rate, a fixed cost that is most of the refusals of a small stack (11 of 48 calls for
 * two stacks of 12 + 12 under 4 a second; with 2, 5 or 6: test/e2e/yaml.test.ts). Before the first
 * answer, one: a platform that announces its limit in its headers (rate-headers.ts) is paced from
 * its first answer rather than refusing a first wave sent blind, for one round trip at the start.
 */
const firstWindow = 2;
const windowBeforeAnswers = 1;
/**
 * A sending leaves a while after its turn: a timer fires late, a process's first request loads the
 * HTTP client and connects (~150 ms measured on a busy provider host), a turn given to another
 * process (shared-gate.ts) waits for that process's event loop, busy with the engine (measured: up to
 * 100 ms, two turns then sent 1 ms apart). Under a limit with no burst, the next sending then comes
 * too close and is refused, pausing every call for its `Retry-After`. So each sending's departure is
 * noted (`sent`), the next is kept at least this share of the interval after it, and a turn given to
 * another process holds the next until that process reports it sent, at most `longestReportWaitMs`.
 * At the gate's usual 95 % of a limit, this share keeps sendings no closer than the limit's own
 * interval, and costs nothing while they leave on time.
 */
const leastGapShare = settleShare;
const longestReportWaitMs = 1_000;

export class Pace implements Gate {
  /** Requests per second; Infinity while no limit is known. */
  private rate: number;
  /** The rate a refusal came at: recovering up to it is quick. */
  private ceiling = Infinity;
  private nextAt = 0;
  private pausedUntil = 0;
  /** The end of the wait of a refusal only its own request waits out (`holdFor`). */
  private refusedUntil = -Infinity;
  private lastCutAt = -Infinity;
  /** When a 503 last eased the rate off (`ease`). */
  private lastEaseAt = -Infinity;
  private lastChangeAt = -Infinity;
  /** How long the rate is held under the ceiling before probing past it, and since when. */
  private plateauMs = firstPlateauMs;
  private settledAt = -Infinity;
  /** Seconds of probing past the ceiling since the last cut. */
  private probes = 0;
  /** When a caller last had to wait for its turn: only then is a higher rate worth trying. */
  private heldAt = -Infinity;
  private accepted: number[] = [];
  /** Whether each of the last answers (`recentAnswers`) was a 503. */
  private recent: boolean[] = [];
  /** Whether 503s came as a limit's refusals do (`busyLimitCount`): then each is taken for one. */
  private busyIsLimit = false;
  private inFlight = 0;
  /** Requests in flight allowed while no rate is known (`firstWindow`). */
  private window = windowBeforeAnswers;
  /** When the last sending left (`sent`), and the turn given to another process not yet reported sent. */
  private lastSentAt = -Infinity;
  private unsent: Ticket | undefined;
  private readonly sentWaiters: (() => void)[] = [];
  private readonly slotWaiters: (() => void)[] = [];
  /** Callers waiting for their turn (`acquire`), and whether one holds it. */
  private readonly turns: { readonly retry: boolean; readonly go: () => void }[] = [];
  private taken = false;
  private limits: PaceLimits = {};
  /** The rate the platform's headers last announced (rate-headers.ts); Infinity: none. */
  private announced = Infinity;

  constructor(
    private readonly clock: Clock,
    limits: PaceLimits = {},
  ) {
    this.rate = limits.maxRequestsPerSecond ?? Infinity;
    this.setLimits(limits);
  }

  /** New settings (a later configure()); a lower maximum applies at once. */
  setLimits(limits: PaceLimits): void {
    const max = limits.maxRequestsPerSecond;
    if (max !== undefined && (this.limits.maxRequestsPerSecond !== max || this.rate > max)) {
      this.rate = Math.min(this.rate === Infinity ? max : this.rate, max);
    }
    this.limits = limits;
  }

  /**
   * Starts a gate that knows no rate yet at `rate`, held there for a plateau before probing past
   * it: the rate the leader of a shared gate last gave, when this process takes over from it.
   */
  resume(rate: number): void {
    if (this.rate !== Infinity || !(rate > 0)) return;
    const now = this.clock.now();
    this.rate = Math.min(rate, this.cap);
    this.ceiling = this.rate / settleShare;
    this.settledAt = now;
    this.lastChangeAt = now;
    // The last leader's last sending may have just left: one interval before this one's first.
    this.nextAt = now + this.interval;
  }

  /**
   * The highest rate allowed: the user's maximum, and 95 % of the rate the platform announced. Not
   * all of it: calls leave here a few milliseconds apart from where they arrive, and under a limit
   * with no burst two calls closer than its interval are refused, each refusal pausing every call
   * for its `Retry-After` (a second: 5 calls at 5 a second).
   */
  private get cap(): number {
    return Math.min(this.limits.maxRequestsPerSecond ?? Infinity, this.announced * settleShare);
  }

  /** The settings in force: part of a shared gate's name. */
  get limitsInForce(): PaceLimits {
    return this.limits;
  }

  /** The rate in use (Infinity: none), for tests and log lines. */
  get currentRate(): number {
    return this.rate;
  }

  /**
   * Waits for the caller's turn: after any pause, one interval after the previous sending, with a
   * free slot. Callers are let through in the order they came, except that a request sent again
   * (`retry`: it was refused or went unanswered) goes before every first sending: it has waited its
   * turn once already, and a request sent to the back of the queue at each refusal could spend its
   * whole time budget queueing.
   */
  async acquire(retry = false, reported = false): Promise<Ticket> {
    await this.turn(retry);
    try {
      let at: number;
      for (;;) {
        const unpaced = this.rate === Infinity;
        at = await this.waitForTime();
        await this.waitForSlot();
        // The answer that freed the slot may have announced the rate: then this turn is paced too.
        if (!unpaced || this.rate === Infinity) break;
      }
      this.inFlight += 1;
      const ticket = { at };
      // Sent from here on (noted again when it has left, `sent`); by another process, once it says so.
      if (reported) this.unsent = ticket;
      else this.lastSentAt = this.clock.now();
      return ticket;
    } finally {
      this.passTurn();
    }
  }

  /**
   * The sending of `ticket`'s turn has left, here or in the process the turn went to (`acquire` with
   * `reported`): the next turn is spaced from now. A turn released (answered, or its process gone)
   * has been sent.
   */
  sent(ticket: Ticket): void {
    this.lastSentAt = Math.max(this.lastSentAt, this.clock.now());
    if (this.unsent !== ticket) return;
    this.unsent = undefined;
    for (const wake of this.sentWaiters.splice(0)) wake();
  }

  /** Resolves when no other caller is between its turn and its sending: retries first, then in order. */
  private turn(retry: boolean): Promise<void> {
    if (!this.taken) {
      this.taken = true;
      return Promise.resolve();
    }
    return new Promise((go) => {
      const waiter = { retry, go };
      const firstOfFirsts = retry ? this.turns.findIndex((w) => !w.retry) : -1;
      if (firstOfFirsts === -1) this.turns.push(waiter);
      else this.turns.splice(firstOfFirsts, 0, waiter);
    });
  }

  private passTurn(): void {
    const next = this.turns.shift();
    if (next === undefined) this.taken = false;
    else next.go();
  }

  /** Ends a sending, with what its answer says of the limit. */
  release(ticket: Ticket, signal: Signal): void {
    if (this.unsent === ticket) this.sent(ticket);
    this.inFlight -= 1;
    this.slotWaiters.shift()?.();
    const now = this.clock.now();
    if (signal.kind !== "none" && signal.announcedRate !== undefined) this.heed(signal.announcedRate, now);
    if (signal.kind !== "none") {
      this.window = Math.max(this.window, firstWindow);
      this.recent.push(signal.kind === "busy");
      if (this.recent.length > recentAnswers) this.recent.shift();
    }
    switch (signal.kind) {
      case "accepted":
        this.window += 1;
        this.accepted.push(now);
        if (this.accepted.length > 1000) this.accepted = this.accepted.filter((t) => t > now - windowMs);
        this.raise(now);
        return;
      case "refused":
        this.holdFor(ticket, now, signal.retryAfterMs);
        this.lower(ticket, now, refusedDecrease);
        return;
      case "busy":
        this.busyIsLimit ||= this.busyLikeLimit();
        if (this.busyIsLimit) this.lower(ticket, now, refusedDecrease);
        else if (this.rate !== Infinity) this.ease(ticket, now);
        return;
      case "none":
        return;
    }
  }

  /**
   * Who waits out a refusal's `Retry-After` (the refused request always does, on its own timer:
   * retrying.ts). Everyone, while no rate is known (a first wave sent blind: more of it would be
   * refused), when the wait is long (a window of a minute or an hour is spent), and at a second
   * refusal within the first's wait (a window spent: its next sendings would be refused too).
   * Not the others at the first short refusal of a paced rate: that is the gate's own probe just
   * past the limit, the rate is cut below it at once (`lower`), and a token bucket lets the next
   * paced call through. Holding every call for a `Retry-After: 1` cost ten calls of time at 10 a
   * second each time the gate probed: under a limit with no burst, 1.17-1.28× the ideal in the
   * simulation (1.07-1.16× now) and 1.33× with the real engine (1.19× now; bench/README.md, "A
   * probe's refusal holds only itself").
   */
  private holdFor(ticket: Ticket, now: number, waitMs: number | undefined): void {
    if (waitMs === undefined || waitMs > longestPauseMs) return;
    const probe =
      this.rate !== Infinity && waitMs <= shortRefusalMs && now >= this.refusedUntil && ticket.at >= this.lastCutAt;
    if (probe) this.refusedUntil = now + waitMs;
    else if (now + waitMs > this.pausedUntil) this.pausedUntil = now + waitMs;
  }

  /**
   * A rate the platform announced: a gate that knew none starts at its cap with no refusal to learn
   * from, and one above it comes down to it; a refusal still lowers it (stacks on other machines
   * share the key), and it comes back up to the cap, never past it.
   */
  private heed(rate: number, now: number): void {
    if (rate === this.announced) return;
    this.announced = rate;
    if (this.rate === Infinity) {
      this.ceiling = rate;
      this.settledAt = now;
    }
    if (this.rate > this.cap) {
      this.rate = this.cap;
      this.lastChangeAt = now;
    }
  }

  /**
   * The time this caller's turn came: one interval after the previous turn was due, and a little
   * less than one after the previous sending actually left (`leastGapShare`), past any pause. Looked
   * at again on waking: meanwhile a pause may have begun, the rate fallen, or the previous sending
   * left late.
   */
  private async waitForTime(): Promise<number> {
    let at = this.clock.now();
    for (;;) {
      await this.previousSent();
      const now = this.clock.now();
      const due = Math.max(this.nextAt, this.lastSentAt + this.interval * leastGapShare);
      if (due > Math.max(now, this.pausedUntil)) this.heldAt = now;
      // The time the turn is due, not when this caller woke: a timer that fires late does not
      // push every later turn back.
      at = Math.max(at, this.pausedUntil, due);
      if (at <= now) break;
      await this.clock.sleep(at - now);
    }
    this.nextAt = at + this.interval;
    return at;
  }

  /** Milliseconds between turns at the rate in use; 0 while none is known. */
  private get interval(): number {
    return this.rate === Infinity ? 0 : 1000 / this.rate;
  }

  /** While paced, waits (at most `longestReportWaitMs`) for the turn another process holds to be sent. */
  private async previousSent(): Promise<void> {
    if (this.rate === Infinity || this.unsent === undefined) return;
    const waiting = this.unsent;
    await Promise.race([
      new Promise<void>((resolve) => this.sentWaiters.push(resolve)),
      this.clock.sleep(longestReportWaitMs),
    ]);
    // Not reported in time (a process stalled): go on as if it had been sent then.
    if (this.unsent === waiting) this.sent(waiting);
  }

  private async waitForSlot(): Promise<void> {
    const learning = this.rate === Infinity ? this.window : Infinity;
    const max = Math.min(this.limits.maxConcurrentRequests ?? Infinity, learning);
    while (this.inFlight >= max) {
      await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    }
  }

  /**
   * Once per refusal episode: answers to requests sent before the last cut say nothing new. With
   * no rate known yet, the platform's is what it accepted in the last second.
   */
  private lower(ticket: Ticket, now: number, keep: number): void {
    if (ticket.at < this.lastCutAt) return;
    const learning = this.rate === Infinity;
    let from = this.rate;
    if (learning) {
      this.accepted = this.accepted.filter((t) => t > now - windowMs);
      if (this.accepted.length === 0) return;
      from = this.accepted.length;
    }
    if (!learning) {
      // Refused again soon (the settling second, the plateau, a probe or two): probe less often.
      const soon = now - this.lastCutAt < 2 * this.plateauMs + 2_000;
      this.plateauMs = soon
        ? Math.min(longestPlateauMs, this.plateauMs * 2)
        : Math.max(firstPlateauMs, this.plateauMs / 2);
    }
    this.ceiling = learning ? Infinity : from;
    this.rate = Math.max(floorRate, from * keep);
    this.probes = 0;
    this.lastCutAt = now;
    // The raise waits for a second of requests, not of a pause.
    this.lastChangeAt = Math.max(now, this.pausedUntil);
  }

  /** Whether the last answers' 503s are a limit's refusals (`busyLimitCount`). */
  private busyLikeLimit(): boolean {
    return this.recent.filter((busy) => busy).length >= busyLimitCount;
  }

  /**
   * A 503 says the platform is overloaded, not where its limit is: the rate eases off by
   * `busyDecrease`, once per episode as a refusal's cut is, and comes back as answers succeed, while
   * the ceiling, the plateau and its clock stay as they were. Taken as refusals, sporadic 503s (the
   * soak's 10 %) cut the ceiling a little at each and held the plateau from ever ending, so the rate
   * only went down: 100 calls under the soak's faults took 3.7 to 22 times the engine's own time in
   * the pacing simulation (2.6 to 14 now), and with eight stacks on one gate some ran out of time
   * (bench/README.md, "A 503 is not a limit"). A platform that answers mostly 503s accepts too few
   * for the rate to come back: it still falls.
   */
  private ease(ticket: Ticket, now: number): void {
    if (ticket.at < this.lastEaseAt) return;
    this.rate = Math.max(floorRate, this.rate * busyDecrease);
    this.lastEaseAt = now;
  }

  private raise(now: number): void {
    if (this.rate === Infinity || now - this.lastChangeAt < 1000 || now - this.heldAt > 1000) return;
    let raised: number;
    if (this.ceiling === Infinity) raised = this.rate * startIncrease;
    else if (this.rate < this.ceiling * settleShare) {
      raised = Math.min(this.ceiling * settleShare, this.rate * recoverIncrease);
      // Back under the ceiling after a cut, the plateau starts; after an ease, it goes on.
      if (raised === this.ceiling * settleShare && this.settledAt < this.lastCutAt) this.settledAt = now;
    } else if (now - this.settledAt < this.plateauMs) return;
    else raised = this.rate * (1 + (this.probes++ === 0 ? firstProbeStep : largestProbeStep));
    this.rate = Math.min(raised, this.cap);
    this.lastChangeAt = now;
  }
}

/** One sending through `gate`: waits for its turn, sends, and tells the gate what the answer said. */
export async function paced(gate: Gate, clock: Clock, send: () => Promise<Answer>, retry = false): Promise<Answer> {
  const ticket = await gate.acquire(retry);
  let answer: Answer | undefined;
  try {
    // `send` hands the request to the socket before it first waits (send.ts): it has left.
    const answering = send();
    gate.sent(ticket);
    answer = await answering;
    return answer;
  } finally {
    gate.release(ticket, signalOf(answer, clock.now()));
  }
}

function signalOf(answer: Answer | undefined, now: number): Signal {
  if (answer === undefined || answer.kind === "none") return { kind: "none" };
  const rate = announcedRate(answer.headers);
  const announced = rate === undefined ? {} : { announcedRate: rate };
  if (answer.status === 503) return { kind: "busy", ...announced };
  if (answer.status !== 429) return { kind: "accepted", ...announced };
  const retryAfterMs = refusalWaitMs(answer.headers, now);
  return { kind: "refused", ...announced, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
}

/**
 * The gates of this process, per clock (the system's in a provider; a test's own otherwise), then
 * per address and credential: every client built for one key (host.ts builds a new one when the
 * settings change) shares one.
 */
const gates = new WeakMap<Clock, Map<string, Pace>>();

/** A digest, so that no map or file name holds a credential. */
export const digestOf = (credential: string) => createHash("sha256").update(credential).digest("base64url");

/** This process's own gate for requests to `origin` with `credential`, its limits set to `limits`. */
export function paceFor(clock: Clock, origin: string, credential: string, limits: PaceLimits): Pace {
  return ownGate(clock, `${origin} ${digestOf(credential)}`, limits);
}

/** The same for a key already made of the address and the credential's digest (`gateFor`'s). */
export function ownGate(clock: Clock, key: string, limits: PaceLimits): Pace {
  let byKey = gates.get(clock);
  if (byKey === undefined) gates.set(clock, (byKey = new Map()));
  let gate = byKey.get(key);
  if (gate === undefined) byKey.set(key, (gate = new Pace(clock, limits)));
  else gate.setLimits(limits);
  return gate;
}
