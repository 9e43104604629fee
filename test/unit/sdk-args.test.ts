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

// @pulumi/pulumi captures a stack trace for each promise it makes per property, for its report of
// promises left pending; the SDK classes register with none captured (sdk/resource.ts,
// `registration`): a tenth of a no-change preview at N = 1,000.
describe("a resource's registration", () => {
  /** Stack traces captured with frames while `make` runs (Error.prepareStackTrace sees each one formatted). */
  function framedStacks(make: () => void): number {
    const saved = Error.prepareStackTrace;
    let framed = 0;
    Error.prepareStackTrace = (error, frames) => {
      if (frames.length > 0) framed += 1;
      return saved === undefined
        ? `${String(error)}\n${frames.map((f) => `    at ${f}`).join("\n")}`
        : saved(error, frames);
    };
    try {
      make();
    } finally {
      Error.prepareStackTrace = saved;
    }
    return framed;
  }

  it("captures no stack for its promises, and leaves the program's stack limit as it was", async () => {
    const sdk = await import("../../sdk/index.js");
    const before = Error.stackTraceLimit;
    Error.stackTraceLimit = 17;
    try {
      // Pulumi's own stack for the resource's position in the program is all that is captured.
      expect(framedStacks(() => new sdk.Bucket("quiet", { name: "quiet-logs" }))).toBeLessThanOrEqual(2);
      expect(framedStacks(() => new sdk.BucketCredential("quiet-cred", { bucketId: "bkt_1" }))).toBeLessThanOrEqual(2);
      expect(Error.stackTraceLimit).toBe(17);
      // The same registration outside the span: a stack for each promise (dozens).
      class Plain extends pulumi.CustomResource {}
      expect(framedStacks(() => new Plain("test:index:Plain", "plain", { a: 1, b: 2 }))).toBeGreaterThan(8);
    } finally {
      Error.stackTraceLimit = before;
    }
  });

  it("gives an error thrown while registering the program's stack, and restores the limit", async () => {
    const { DnsZone } = await import("../../sdk/dns-zone.js");
    const before = Error.stackTraceLimit;
    let thrown: unknown;
    try {
      new DnsZone("", { name: "example.com" }); // Pulumi refuses a resource without a name
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).message).toMatch(/name/i);
    expect((thrown as Error).stack).toContain("sdk-args.test.ts");
    expect(Error.stackTraceLimit).toBe(before);
  });
});
