// Updates and deletes under lost, unreadable and dropped answers end in the intended state
// (docs/api-contract.md §2.4): the engine against an emulator that loses answers after processing
// the request, garbles them, and drops connections, on every route.
import { describe, expect, it } from "vitest";
import { emulatorState, Platform, type Faults } from "../support/platform.mts";
import { management, providerConfig, type Emulator } from "../support/emulator.js";
import { useExampleStack } from "../support/hooks.js";
import { output, type Config, type RunResult } from "../support/runner.js";
import { accessFrom, roundTrip } from "./support/s3.js";

// Seeded (§9): every `up` and the destroy replay the same rolls, whose first three are a lost
// answer, an unreadable one and a dropped connection, then a quarter of the rest at random. Unseeded,
// a deployment of a few requests could meet no fault at all, and a clean-clone CI run once did.
const faults: Faults = { loseRate: 0.1, garbleRate: 0.1, dropRate: 0.05, retryAfterSeconds: 0, seed: 2280 };

/** Faults injected so far, by kind. */
async function injected(emulator: Emulator): Promise<{ lose: number; garble: number; drop: number }> {
  const counts = (await new Platform(emulator).stats()).injected;
  return { lose: counts["lose"] ?? 0, garble: counts["garble"] ?? 0, drop: counts["drop"] ?? 0 };
}

describe("a credential's whole life under lost, unreadable and dropped answers", () => {
  const lifecycle = useExampleStack("credential-lifecycle");
  let current: RunResult;
  const setting = (key: string, value: string): Config => ({
    [`cloudplatform-credential-lifecycle:${key}`]: { value },
  });

  /** One `up` with the faults on; S3 is checked with them off (its client does not retry here). */
  async function upUnderFaults(config?: Config): Promise<RunResult> {
    expect(await new Platform(lifecycle.emulator).setFaults(faults)).toEqual({ accepted: true });
    try {
      return await lifecycle.stack.up(config);
    } finally {
      await new Platform(lifecycle.emulator).clearFaults();
    }
  }

  it("creates, deactivates, activates and rotates with the first `up` each time, one credential throughout", async () => {
    current = await upUnderFaults();
    expect(await roundTrip(accessFrom(current))).toBe("ok");
    const off = await upUnderFaults(setting("active", "false"));
    expect(await roundTrip(accessFrom(off))).toBe("InvalidAccessKeyId");
    const on = await upUnderFaults(setting("active", "true"));
    expect(await roundTrip(accessFrom(on))).toBe("ok");
    const rotated = await upUnderFaults({ ...setting("active", "true"), ...setting("rotation", "2") });
    expect(output(rotated, "accessKeyId")).toBe(output(current, "accessKeyId"));
    expect(await roundTrip(accessFrom(on))).toBe("SignatureDoesNotMatch");
    expect(await roundTrip(accessFrom(rotated))).toBe("ok");
    expect(await emulatorState(lifecycle.emulator)).toMatchObject({ buckets: 1, credentials: 1 });
    // Each of the four `up`s met at least its first three faults.
    const seen = await injected(lifecycle.emulator);
    expect(seen.lose, JSON.stringify(seen)).toBeGreaterThanOrEqual(4);
    expect(seen.garble, JSON.stringify(seen)).toBeGreaterThanOrEqual(4);
    expect(seen.drop, JSON.stringify(seen)).toBeGreaterThanOrEqual(4);
  });

  it("destroys (emptying the bucket through a temporary credential) and leaves the emulator empty", async () => {
    const before = await injected(lifecycle.emulator);
    expect(await new Platform(lifecycle.emulator).setFaults(faults)).toEqual({ accepted: true });
    try {
      await lifecycle.stack.destroy();
    } finally {
      await new Platform(lifecycle.emulator).clearFaults();
    }
    expect(await emulatorState(lifecycle.emulator)).toMatchObject({ buckets: 0, credentials: 0, zones: 0 });
    // The destroy met each kind of fault.
    const after = await injected(lifecycle.emulator);
    expect(after.lose - before.lose, JSON.stringify({ before, after })).toBeGreaterThan(0);
    expect(after.garble - before.garble, JSON.stringify({ before, after })).toBeGreaterThan(0);
    expect(after.drop - before.drop, JSON.stringify({ before, after })).toBeGreaterThan(0);
  });
});

describe("an API key rotation whose answer is lost, while the provider authenticates with that key", () => {
  const apiKey = useExampleStack("api-key", { config: (emulator) => providerConfig(emulator, "apiKey") });

  it("says exactly what happened and how to go on, and the way it gives works", async () => {
    // The emulator's apiKey is its current key: keep the one the provider starts with.
    const configured = apiKey.emulator.apiKey;
    expect(await new Platform(apiKey.emulator).setFaults({ loseRate: 1, routes: "POST /security/apikey" })).toEqual({
      accepted: true,
    });
    const failed = await apiKey.stack.upFailing();
    await new Platform(apiKey.emulator).clearFaults();
    expect(failed.ok).toBe(false);
    const message = failed.error ?? "";
    expect(message).toContain("CLOUDPLATFORM_OUTCOME_UNKNOWN");
    expect(message).toContain("the platform rotated the project API key");
    expect(message).toContain("was lost on the way");
    // It did rotate: the configured key is refused now, and the new one was never shown.
    expect(apiKey.emulator.apiKey).not.toBe(configured);
    expect(message).not.toContain(configured);
    expect(message).not.toContain(apiKey.emulator.apiKey);
    const refused = await fetch(`${apiKey.emulator.baseUrl}/dns/zones`, { headers: { authorization: configured } });
    expect(refused.status).toBe(401);

    // What the message says: authenticate with a dashboard token instead, and run `pulumi up` again.
    const recovered = await apiKey.stack.up(providerConfig(apiKey.emulator, "token"), ["cloudplatform:apiKey"]);
    const key = output(recovered, "apiKey");
    expect((await fetch(`${apiKey.emulator.baseUrl}/dns/zones`, { headers: { authorization: key } })).status).toBe(200);
    expect((await management(apiKey.emulator, "GET", "/dns/zones")).status).toBe(200);
  });
});
