/**
 * A provider process ends when its engine is gone. The engine stops its providers when it ends
 * normally; a CLI killed with SIGKILL (or a crash) stops nothing, and a provider serving gRPC on its
 * own port would wait for calls forever (issue 37: seen alive 36 minutes later). Two signs, checked
 * on an unref'd timer so that they never keep a finished process alive:
 * - the parent changed: the engine starts the plugin (through a launcher that `exec`s node), so
 *   when the engine dies the process is re-parented. A cheap syscall, checked every second.
 * - the engine's gRPC address refuses connections: covers a parent that is not the engine (a
 *   wrapper that does not `exec`, a language host) and Windows, which does not re-parent. A TCP
 *   connect to loopback, every few seconds only, so that a long `up` opens few connections.
 * A timeout or any other error counts as alive: only a certain sign ends the process. A third sign,
 * standard output or error broken, is `exitWhenOutputBreaks`.
 */
import net from "node:net";

/** Host and port of an engine address as the engine passes it (`127.0.0.1:4000`, `[::1]:4000`). */
export function hostAndPort(address: string): { host: string; port: number } | undefined {
  const colon = address.lastIndexOf(":");
  const port = Number(address.slice(colon + 1));
  if (colon <= 0 || !Number.isInteger(port) || port <= 0 || port > 65535) return undefined;
  return { host: address.slice(0, colon).replace(/^\[(.*)\]$/, "$1"), port };
}

/** False only when the engine's address refuses a connection: nobody listens there any more. */
export function engineListens(address: string, timeoutMs = 2000): Promise<boolean> {
  const target = hostAndPort(address);
  if (target === undefined) return Promise.resolve(true);
  return new Promise((resolve) => {
    const socket = net.connect(target);
    const done = (alive: boolean): void => {
      socket.destroy();
      resolve(alive);
    };
    socket.setTimeout(timeoutMs, () => done(true));
    socket.once("connect", () => done(true));
    socket.once("error", (error: NodeJS.ErrnoException) => done(error.code !== "ECONNREFUSED"));
  });
}

export interface EngineWatch {
  /** The engine's address (the plugin's argument); without one only the parent is watched. */
  address: string | undefined;
  /** Called once, with the reason, when the engine is gone. */
  onGone: (reason: string) => void;
  /** The parent's pid now (default: `process.ppid`, which Node reads anew on each access). */
  parentPid?: () => number;
  /** Default `engineListens`. */
  probe?: (address: string) => Promise<boolean>;
  /** Milliseconds between parent checks (default 1000). */
  intervalMs?: number;
  /** Parent checks per address probe (default 5). */
  probeEvery?: number;
}

/** Starts watching; returns the function that stops. */
export function watchEngine(watch: EngineWatch): () => void {
  const parentPid = watch.parentPid ?? (() => process.ppid);
  const probe = watch.probe ?? engineListens;
  const probeEvery = watch.probeEvery ?? 5;
  const firstParent = parentPid();
  let ticks = 0;
  let probing = false;
  let gone = false;
  const end = (reason: string): void => {
    if (gone) return;
    gone = true;
    clearInterval(timer);
    watch.onGone(reason);
  };
  const timer = setInterval(() => {
    ticks += 1;
    const parent = parentPid();
    if (parent !== firstParent) return end(`its parent process ${firstParent} ended (now ${parent})`);
    const address = watch.address;
    if (address === undefined || probing || ticks % probeEvery !== 0) return;
    probing = true;
    void probe(address).then((alive) => {
      probing = false;
      if (!alive) end(`the engine's address ${address} refuses connections`);
    });
  }, watch.intervalMs ?? 1000);
  timer.unref();
  return () => clearInterval(timer);
}

/** Errors of a write to a pipe or socket whose reader is gone. */
const brokenCodes = new Set(["EPIPE", "ECONNRESET", "ERR_STREAM_DESTROYED"]);

/**
 * A third sign, and the first to come when the process writes: its standard output or error breaks
 * (EPIPE), since the engine reads both until the process ends. It is also a guard. @pulumi/pulumi's
 * dynamic provider host prints every uncaught error to stderr; once nobody reads it, each print
 * fails with an error that is itself uncaught and printed again: a chain of `process.nextTick`
 * that never yields to timers (the engine watch never runs again), at full CPU, memory growing to
 * the heap's limit (seen 4.3 GB 12 minutes after a SIGKILL of the CLI). With a listener, a stream's
 * error is never uncaught: a broken stream ends the process, any other is dropped (nothing could
 * print it).
 */
export function exitWhenOutputBreaks(
  streams: readonly NodeJS.EventEmitter[] = [process.stdout, process.stderr],
  exit: () => void = () => process.exit(1),
): void {
  for (const stream of streams) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (brokenCodes.has(error.code ?? "")) exit();
    });
  }
}

/**
 * Watches for the engine of this process and exits when it is gone: nothing can record the result
 * of a call any more, and the engine's state journal already marks operations in flight as pending
 * (what "When a deployment is interrupted" in the README tells the user to do with them).
 */
export function exitWithEngine(address: string | undefined, name: string): void {
  exitWhenOutputBreaks();
  watchEngine({
    address,
    onGone: (reason) => {
      process.stderr.write(`${name}: exiting, the Pulumi engine is gone: ${reason}\n`);
      process.exit(1);
    },
  });
}
