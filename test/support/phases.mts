// The suite's phases, one after another (vitest.config.mts, sequence.groupOrder): which files each
// holds, so that the config and `npm test`'s closing figures (test/support/summary.mts) agree.

// No end-to-end file runs alone: none waits for a window of time that a second engine on the same
// two cores would stretch or close, so all of them run three at a time (vitest.config.mts).
//
// Though they kill processes or race deployments, every kill waits for an event, not a time.
// interrupted.test.ts and rotation-faults.test.ts kill an `up` once the platform has counted a
// write, or once the checkpoint shows a create pending, and the emulator holds those creates back
// (300 ms to 2 s) so that the kill lands while they are in flight however slow the machine is;
// synced-folder-interrupted.test.ts kills a sync once the platform has counted 150 of its 600
// uploads, each held back 100 ms (the 450 left take 3 s at least), and asserts on what the killed
// run's log says, not on how many made it. rotation-two-stacks' race asserts what must hold
// whether or not the stacks overlap. state-backend-race.test.ts tells two `up`s that both ran at
// once from two that ran one after the other by the buckets the platform saw created, not by how
// long they took (it ran alone, after the others, while it read the clock). The soak runs the same
// kinds of kills beside other engines.
//
// Nor do state-backend.test.ts (nothing there waits on the clock), gitops.test.ts (its `up` meets a
// lock that is let go once the `up` has met it, not after a fixed time), rotation-answer-faults (lost
// and garbled answers, no window) and rotation.test.ts: its schedule test waits two minutes on the
// clock, which is cheap beside another file and dear alone, and its window (a preview, an up and a
// preview within 59 s) is several times what they take beside another engine; the test says so when
// a machine misses it.

/**
 * The end-to-end files of fault loops and kills, which `npm test` leaves to the soak (vitest.config.mts's
 * project "faults", run by `npm run soak` beside its own rounds, test/soak/fault-tests.mts): each
 * replays an `up` under lost, garbled or dropped answers, or kills one and checks the next, the
 * soak's own kind of work (issue 36). CI runs them in the short soak; `npm run test:faults` runs
 * them alone. interrupted.test.ts stays in `npm test`: it runs the commands of
 * docs/interruptions.md, which the suite's check of the documentation counts (scripts/doc-coverage.mts).
 */
export const faultFiles = [
  "test/e2e/faults.test.ts",
  "test/e2e/rotation-answer-faults.test.ts",
  "test/e2e/rotation-faults.test.ts",
  "test/e2e/rotation-two-stacks.test.ts",
  "test/e2e/synced-folder-interrupted.test.ts",
] as const;

export type Phase = "unit and emulator" | "e2e";

/** The phase of a test file, by its path relative to the repository. */
export function phaseOf(file: string): Phase {
  return file.startsWith("test/e2e/") ? "e2e" : "unit and emulator";
}
