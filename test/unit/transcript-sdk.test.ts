import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";

interface Registered {
  readonly type: string;
  readonly name: string;
  readonly inputs: Record<string, unknown>;
}

const registered: Registered[] = [];

pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      registered.push({ type: args.type, name: args.name, inputs: args.inputs as Record<string, unknown> });
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: () => ({}),
  },
  "project",
  "stack",
  true,
);

function settled<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

describe("Transcript SDK class", () => {
  it("registers the dynamic type token and passes a FileAsset as its path", async () => {
    const { Transcript } = await import("../../sdk/transcript.js");
    const t = new Transcript("talk", { source: new pulumi.asset.FileAsset("media/talk.wav"), language: "en" });
    await settled(t.urn);
    const entry = registered.find((r) => r.name === "talk");
    expect(entry?.type).toBe("pulumi-nodejs:dynamic/cloudplatform:Transcript");
    expect(entry?.inputs).toMatchObject({ sourcePath: "media/talk.wav", language: "en" });
    expect(entry?.inputs).not.toHaveProperty("source");
  });

  it("accepts a path string, also inside an Output", async () => {
    const { Transcript } = await import("../../sdk/transcript.js");
    const t = new Transcript("later", { source: pulumi.output("media/later.wav") });
    await settled(t.urn);
    expect(registered.find((r) => r.name === "later")?.inputs).toMatchObject({ sourcePath: "media/later.wav" });
  });

  it("accepts a FileAsset inside an Output", async () => {
    const { Transcript } = await import("../../sdk/transcript.js");
    // Pulumi types an Output of an asset as its unwrapped shape; JavaScript programs pass it anyway.
    const wrapped = pulumi.output(
      new pulumi.asset.FileAsset("media/wrapped.wav"),
    ) as unknown as pulumi.Input<pulumi.asset.FileAsset>;
    const t = new Transcript("wrapped", { source: wrapped });
    await settled(t.urn);
    expect(registered.find((r) => r.name === "wrapped")?.inputs).toMatchObject({ sourcePath: "media/wrapped.wav" });
  });
});
