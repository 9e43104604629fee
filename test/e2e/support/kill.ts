// An `up` SIGKILLed in the middle, as the tests of interrupted deployments make one (README, "When a
// deployment is interrupted"), with the soak's own pieces (test/soak).
import { expect } from "vitest";
import type { Faults, Platform } from "../../support/platform.mts";
import { processTree, signal, waitGone, type Proc } from "../../support/processes.mts";
import { repairState, type Config, type SoakStack } from "../../support/stacks.mts";

export interface Kill {
  readonly platform: Platform;
  readonly stack: SoakStack;
  readonly config: Config;
  /** The Pulumi CLI, or the program (the runner child hosting it). */
  readonly victim: "cli" | "program";
  /** Set on the platform for the `up`, e.g. a latency that keeps requests in flight. */
  readonly faults: Faults;
  /** Polled every 20 ms: true at the moment of the kill. */
  readonly ready: () => Promise<boolean>;
}

/** Starts `up` and SIGKILLs the victim once `ready()` says so; returns the killed run's processes. */
export async function killedUp({ platform, stack, config, victim, faults, ready }: Kill): Promise<Proc[]> {
  await platform.setFaults(faults);
  const running = stack.start("up", config);
  let ended = false;
  void running.result.then(() => (ended = true));
  try {
    for (;;) {
      if (await ready()) break;
      if (ended) throw new Error("the up ended before the moment of the kill");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const tree = await processTree(running.pid);
    const target = victim === "cli" ? tree.find((p) => p.command === "pulumi") : tree[0];
    expect(target, "the up was still running at the kill").toBeDefined();
    await signal(target as Proc, "SIGKILL");
    await running.result;
    // A killed program: the CLI sees it and exits on its own (the user waits for that).
    if (victim === "program") {
      await waitGone(
        tree.filter((p) => p.command === "pulumi"),
        120_000,
      );
    }
    // A CLI killed while saving a checkpoint can leave the file:// backend's empty .attrs file,
    // which no command reads past (the backend's, not the provider's: docs/soak.md).
    await repairState(stack.stateDir);
    return tree;
  } finally {
    await platform.clearFaults();
  }
}
