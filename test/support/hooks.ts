// The set-up every end-to-end test file shares, as vitest hooks: an emulator for the describe block
// (or the file), stacks of examples deployed against it, and their disposal in afterAll. Call them
// where a `beforeAll` would go; what they made is read in the tests, once the hooks have run.
import { afterAll, beforeAll } from "vitest";
import { launchEmulator, providerConfig, type Emulator } from "./emulator.js";
import { Platform } from "./platform.mts";
import { ExampleStack, type Config, type ExampleOptions } from "./runner.js";

/** An emulator started in beforeAll and closed in afterAll. */
export interface EmulatorHook {
  readonly emulator: Emulator;
  /** Its inspection endpoints and the management API (test/support/platform.mts). */
  readonly platform: Platform;
}

/** An example's stack, prepared in beforeAll against an emulator and disposed of in afterAll. */
export interface ExampleStackHook extends EmulatorHook {
  readonly stack: ExampleStack;
}

export interface ExampleStackOptions extends ExampleOptions {
  /** The stack's config for this emulator; default: the provider pointed at it (`providerConfig`). */
  readonly config?: (emulator: Emulator) => Config;
  /** The emulator of a `useEmulator()` to share with other stacks; default: one of its own. */
  readonly on?: EmulatorHook;
  /** Starts the emulator, when the stack has one of its own; default: `launchEmulator`. */
  readonly launch?: () => Promise<Emulator>;
}

function made<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is read before its beforeAll ran (or after it failed)`);
  return value;
}

/** One emulator for the enclosing describe block (or file). */
export function useEmulator(launch: () => Promise<Emulator> = launchEmulator): EmulatorHook {
  let emulator: Emulator | undefined;
  let platform: Platform | undefined;
  beforeAll(async () => {
    emulator = await launch();
    platform = new Platform(emulator);
  });
  afterAll(async () => {
    await emulator?.close();
  });
  return {
    get emulator() {
      return made(emulator, "the emulator");
    },
    get platform() {
      return made(platform, "the emulator");
    },
  };
}

/**
 * A copy of `examples/<example>` in a sandbox of its own with a stack (`ExampleStack`), against an
 * emulator of its own or the one given in `on`. Hooks run in the order they are declared and afterAll
 * in the reverse: a beforeAll declared after this one sees the stack, and the stack is disposed of
 * before its emulator closes.
 */
export function useExampleStack(example: string, options: ExampleStackOptions = {}): ExampleStackHook {
  const { config = providerConfig, on, launch, ...exampleOptions } = options;
  const emulator = on ?? useEmulator(launch);
  let stack: ExampleStack | undefined;
  beforeAll(async () => {
    stack = await ExampleStack.create(example, config(emulator.emulator), exampleOptions);
  });
  afterAll(async () => {
    await stack?.dispose();
  });
  return {
    get emulator() {
      return emulator.emulator;
    },
    get platform() {
      return emulator.platform;
    },
    get stack() {
      return made(stack, `the stack of examples/${example}`);
    },
  };
}

/**
 * The same within one test: an emulator and a stack made for `use` and disposed of after it, for
 * tests that run concurrently, each against an emulator of its own (one per shape, say).
 */
export async function withExampleStack<T>(
  example: string,
  options: Omit<ExampleStackOptions, "on">,
  use: (made: ExampleStackHook) => Promise<T>,
): Promise<T> {
  const { config = providerConfig, launch = launchEmulator, ...exampleOptions } = options;
  let emulator: Emulator | undefined;
  let stack: ExampleStack | undefined;
  try {
    emulator = await launch();
    stack = await ExampleStack.create(example, config(emulator), exampleOptions);
    return await use({ emulator, platform: new Platform(emulator), stack });
  } finally {
    await stack?.dispose();
    await emulator?.close();
  }
}
