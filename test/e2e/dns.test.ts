// examples/dns: a zone and a lookup of it, with the real engine against a real emulator.
import { describe, expect, it } from "vitest";
import { useExampleStack } from "../support/hooks.js";
import { emulatorState } from "../support/platform.mts";
import { expectAtRest, expectDestroyedClean } from "./support/lifecycle.js";
import { output } from "../support/runner.js";

describe("examples/dns", () => {
  const dns = useExampleStack("dns");

  it("up creates the zone, and the lookup by name finds the same zone", async () => {
    const up = await dns.stack.up({ "cloudplatform-dns:zoneName": { value: "e2e-example.com" } });
    expect(output(up, "zoneName")).toBe("e2e-example.com");
    expect(output(up, "lookedUpZoneId")).toBe(output(up, "zoneId"));
    expect(await emulatorState(dns.emulator)).toMatchObject({ zones: 1 });
  });

  it("is at rest after up: preview and refresh show no changes", async () => {
    await expectAtRest(dns.stack);
  });

  it("destroy removes the zone", async () => {
    await expectDestroyedClean(dns.stack, dns.emulator);
  });
});
