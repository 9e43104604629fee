// examples/dns: a zone and a lookup of it, with the real engine against a real emulator.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchEmulator, providerConfig, type Emulator } from "./support/emulator.js";
import { emulatorState } from "../support/platform.mts";
import { expectAtRest, expectDestroyedClean } from "./support/lifecycle.js";
import { ExampleStack, output } from "./support/runner.js";

describe("examples/dns", () => {
  let emulator: Emulator;
  let stack: ExampleStack;

  beforeAll(async () => {
    emulator = await launchEmulator();
    stack = await ExampleStack.create("dns", providerConfig(emulator));
  });
  afterAll(async () => {
    await stack?.dispose();
    await emulator?.close();
  });

  it("up creates the zone, and the lookup by name finds the same zone", async () => {
    const up = await stack.up({ "cloudplatform-dns:zoneName": { value: "e2e-example.com" } });
    expect(output(up, "zoneName")).toBe("e2e-example.com");
    expect(output(up, "lookedUpZoneId")).toBe(output(up, "zoneId"));
    expect(await emulatorState(emulator)).toMatchObject({ zones: 1 });
  });

  it("is at rest after up: preview and refresh show no changes", async () => {
    await expectAtRest(stack);
  });

  it("destroy removes the zone", async () => {
    await expectDestroyedClean(stack, emulator);
  });
});
