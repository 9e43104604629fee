// What the SDK classes hand the provider: every argument the program gave (a JavaScript program's
// misspelt property reaches check, which refuses it at preview), and a provider text that names the
// resource and its stack's journal.
import * as pulumi from "@pulumi/pulumi";
import { describe, expect, it } from "vitest";
import { journalKey } from "../../provider/contract.js";
import { bucketCore } from "../../provider/resources/bucket/core.js";
import { bucketCredentialCore } from "../../provider/resources/bucket-credential/core.js";
import { ctx } from "./support.js";

const registered = new Map<string, Record<string, unknown>>();

void pulumi.runtime.setMocks(
  {
    newResource: (args) => {
      registered.set(args.name, args.inputs as Record<string, unknown>);
      return { id: `${args.name}-id`, state: args.inputs };
    },
    call: () => ({}),
  },
  "project",
  "dev",
  true,
  "acme",
);

function settled<T>(output: pulumi.Output<T>): Promise<T> {
  return new Promise((resolve) => output.apply(resolve));
}

describe("SDK classes", () => {
  it("pass a property the program misspelt, so that check refuses it naming the right one", async () => {
    const { Bucket } = await import("../../sdk/bucket.js");
    // What a JavaScript program can write: nothing type-checks it.
    const args = { nmae: "my-logs", storageClass: "Standard" } as unknown as ConstructorParameters<typeof Bucket>[1];
    await settled(new Bucket("typo", args).urn);
    const inputs = registered.get("typo") ?? {};
    expect(inputs).toMatchObject({ nmae: "my-logs", storageClass: "Standard" });
    const failures = bucketCore.check(ctx("typo"), undefined, { nmae: "my-logs", storageClass: "Standard" }).failures;
    expect(failures).toEqual([{ property: "nmae", reason: expect.stringContaining('has no property "nmae"') }]);
    expect(failures[0]?.reason).toContain("name");
  });

  it("name the resource and its stack's journal (<organization>/<project>/<stack>) in the provider text alone", async () => {
    const { BucketCredential } = await import("../../sdk/bucket-credential.js");
    await settled(new BucketCredential("cred", { bucketId: "bkt_1" }).urn);
    const inputs = registered.get("cred") ?? {};
    expect(inputs["__provider"]).toBe(
      `exports.handler=()=>require("pulumi-cloudplatform/shims/resource").of("BucketCredential","cred","${journalKey("acme/project/dev")}")`,
    );
    expect(Object.keys(inputs).filter((k) => k.startsWith("__"))).toEqual(["__provider"]);
  });

  it("pass a bucketId of the wrong type through, refused as such rather than as missing", async () => {
    const { BucketCredential } = await import("../../sdk/bucket-credential.js");
    const args = { bucketId: 7 } as unknown as ConstructorParameters<typeof BucketCredential>[1];
    await settled(new BucketCredential("seven", args).urn);
    expect(registered.get("seven")).toMatchObject({ bucketId: 7 });
    const failures = bucketCredentialCore.check(ctx("seven"), undefined, { bucketId: 7 }).failures;
    expect(failures).toEqual([{ property: "bucketId", reason: expect.stringContaining("must be a string") }]);
    expect(failures[0]?.reason).toContain("got number");
  });
});
