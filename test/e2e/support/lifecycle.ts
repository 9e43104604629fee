// Checks every example goes through: a deployed stack is at rest, and destroy leaves nothing behind.
import { expect } from "vitest";
import { type Emulator } from "../../support/emulator.js";
import { emulatorState } from "../../support/platform.mts";
import { changesOtherThanSame, type ExampleStack } from "../../support/runner.js";

/** A preview right after up plans nothing, and a refresh finds no drift. */
export async function expectAtRest(stack: ExampleStack): Promise<void> {
  const preview = await stack.preview();
  expect(changesOtherThanSame(preview), "preview after up").toEqual({});
  const refresh = await stack.refresh();
  expect(changesOtherThanSame(refresh), "refresh after up").toEqual({});
}

export async function expectDestroyedClean(stack: ExampleStack, emulator: Emulator): Promise<void> {
  const destroyed = await stack.destroy();
  expect(destroyed.changes?.delete ?? 0).toBeGreaterThan(0);
  expect(await emulatorState(emulator)).toMatchObject({ buckets: 0, objects: 0, credentials: 0, zones: 0 });
}
