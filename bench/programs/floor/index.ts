// The engine's floor (npm run bench): `resources` dynamic resources whose provider does nothing and
// has no inputs. What an `up`, a refresh or a state costs for any dynamic resource, measured in the
// same run as the provider's own programs: a row's ratio is its time over this program's.
//
// With `pairs: true`, the same number in the shape of buckets and their credentials: `resources / 2`
// pairs whose second resource takes an output of the first as input, so that the engine creates it
// only after the first, and deletes it before. A reference, to tell the cost of that shape from the
// provider's own.
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();
const count = config.requireNumber("resources", { min: 1, max: 10_000 });
const pairs = config.getBoolean("pairs") ?? false;

// Without pairs, exactly the floor of before: no inputs, no outputs (the provider text differs by
// the branch only, and equally for every resource).
const noop: pulumi.dynamic.ResourceProvider = pairs
  ? { create: async (inputs: Record<string, unknown>) => ({ id: "noop", outs: { ...inputs, ref: "noop" } }) }
  : { create: async () => ({ id: "noop", outs: {} }) };

class Noop extends pulumi.dynamic.Resource {
  declare public readonly ref: pulumi.Output<string>;

  constructor(name: string, props: Record<string, pulumi.Input<string>> = {}) {
    super(noop, name, pairs ? { ref: undefined, ...props } : {}, {}, "bench", "Noop");
  }
}

if (pairs) {
  for (let i = 0; i < count / 2; i++) new Noop(`noop-${i}-b`, { parent: new Noop(`noop-${i}-a`).ref });
} else {
  for (let i = 0; i < count; i++) new Noop(`noop-${i}`);
}
