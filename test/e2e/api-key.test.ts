// examples/api-key: the project API key and its rotation. The provider authenticates with the
// dashboard token here, since each rotation disables the previous key at once.
import { beforeAll, describe, expect, it } from "vitest";
import { providerConfig, type Emulator } from "../support/emulator.js";
import { useExampleStack } from "../support/hooks.js";
import { expectAtRest, expectDestroyedClean } from "./support/lifecycle.js";
import { opsOf, output } from "../support/runner.js";

async function keyStatus(emulator: Emulator, key: string): Promise<number> {
  return (await fetch(`${emulator.baseUrl}/dns/zones`, { headers: { authorization: key } })).status;
}

describe("examples/api-key", () => {
  const apiKey = useExampleStack("api-key", { config: (emulator) => providerConfig(emulator, "token") });
  let key: string;
  let startupKey: string;

  beforeAll(() => {
    startupKey = apiKey.emulator.apiKey;
  });

  it("up generates a key, exported as a secret, that the management API accepts", async () => {
    const up = await apiKey.stack.up();
    expect(up.outputs?.apiKey?.secret).toBe(true);
    key = output(up, "apiKey");
    expect(key).not.toBe(startupKey);
    expect(await keyStatus(apiKey.emulator, key)).toBe(200);
    expect(await keyStatus(apiKey.emulator, startupKey)).toBe(401);
  });

  it("is at rest after up: preview and refresh show no changes", async () => {
    await expectAtRest(apiKey.stack);
  });

  it("a new rotation value rotates the key in place: the old key stops working", async () => {
    const rotate = { "cloudplatform-api-key:rotation": { value: "2" } };
    const preview = await apiKey.stack.preview(rotate);
    expect(opsOf(preview, "project-key")).toEqual(["update"]);
    const rotated = await apiKey.stack.up(rotate);
    const next = output(rotated, "apiKey");
    expect(next).not.toBe(key);
    expect(await keyStatus(apiKey.emulator, next)).toBe(200);
    expect(await keyStatus(apiKey.emulator, key)).toBe(401);

    const exported = await apiKey.stack.exportState();
    for (const secret of [startupKey, key, next, apiKey.emulator.token]) expect(exported.includes(secret)).toBe(false);
  });

  it("destroy forgets the key and leaves the emulator empty", async () => {
    await expectDestroyedClean(apiKey.stack, apiKey.emulator);
  });
});
