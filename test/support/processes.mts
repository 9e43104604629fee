// The process tree of one deployment (runner child → pulumi CLI → provider host), read from /proc,
// so the soak can kill exactly one of them and later end the ones it started, by id. A process is
// identified by its id and its start time: an id the kernel reused for someone else's process is
// never signalled.
import type { ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";

export interface Proc {
  readonly pid: number;
  readonly ppid: number;
  /** Clock ticks since boot (field 22 of /proc/<pid>/stat). */
  readonly startTime: string;
  /** argv[0]'s base name. */
  readonly command: string;
}

/** Parses /proc/<pid>/stat; the command name may hold spaces and parentheses, so fields count from its end. */
export function parseStat(stat: string): { pid: number; ppid: number; startTime: string } | undefined {
  const close = stat.lastIndexOf(")");
  if (close < 0) return undefined;
  const pid = Number(stat.slice(0, stat.indexOf(" ")));
  // After ") ": state(3) ppid(4) ... starttime(22); index 0 here is field 3.
  const fields = stat.slice(close + 2).split(" ");
  const ppid = Number(fields[1]);
  const startTime = fields[19];
  if (!Number.isInteger(pid) || !Number.isInteger(ppid) || startTime === undefined) return undefined;
  return { pid, ppid, startTime };
}

async function readProc(pid: number): Promise<Proc | undefined> {
  try {
    const stat = parseStat(await readFile(`/proc/${pid}/stat`, "utf8"));
    if (!stat) return undefined;
    const argv0 = (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0")[0] ?? "";
    return { ...stat, command: path.basename(argv0) };
  } catch {
    return undefined;
  }
}

/** The process and all its descendants alive now (the root first). */
export async function processTree(rootPid: number): Promise<Proc[]> {
  const all: Proc[] = [];
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const proc = await readProc(Number(entry));
    if (proc) all.push(proc);
  }
  const root = all.find((p) => p.pid === rootPid);
  if (!root) return [];
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...all.filter((p) => p.ppid === tree[i]!.pid));
  return tree;
}

/** True while the very process (same id, same start time) still runs and is not a zombie. */
export async function isAlive(proc: Proc): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${proc.pid}/stat`, "utf8");
    const now = parseStat(stat);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return now?.startTime === proc.startTime && state !== "Z";
  } catch {
    return false;
  }
}

export async function signal(proc: Proc, sig: NodeJS.Signals): Promise<void> {
  if (!(await isAlive(proc))) return;
  try {
    process.kill(proc.pid, sig);
  } catch {
    // It ended between the check and the signal.
  }
}

/** Waits until none of `procs` runs; true when they all ended within `timeoutMs`. */
export async function waitGone(procs: readonly Proc[], timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const alive = await Promise.all(procs.map(isAlive));
    if (!alive.includes(true)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Ends the processes the soak started that still run: SIGTERM, then SIGKILL after a grace period. */
export async function endAll(procs: readonly Proc[], graceMs = 3000): Promise<number> {
  const alive = (await Promise.all(procs.map(async (p) => ((await isAlive(p)) ? p : undefined)))).filter(
    (p): p is Proc => p !== undefined,
  );
  for (const p of alive) await signal(p, "SIGTERM");
  if (!(await waitGone(alive, graceMs))) for (const p of alive) await signal(p, "SIGKILL");
  await waitGone(alive, graceMs);
  return alive.length;
}

/** Processes of killed runs, and runner children still at work, to end if the soak stops early. */
const leftovers = new Set<Proc>();
const runningRoots = new Set<number>();

export function endLater(procs: readonly Proc[]): void {
  for (const p of procs) leftovers.add(p);
}

export function watchRoot(pid: number, ended: Promise<unknown>): void {
  runningRoots.add(pid);
  void ended.finally(() => runningRoots.delete(pid));
}

/** Watches a child process the soak started (an emulator) until it exits. */
export function watchChild(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  watchRoot(child.pid, new Promise((resolve) => child.once("exit", resolve)));
}

/** Ends every process the soak started that still runs (on the way out, even after a failure). */
export async function endEverything(): Promise<number> {
  const trees = await Promise.all([...runningRoots].map((pid) => processTree(pid)));
  return endAll([...leftovers, ...trees.flat()]);
}
