// The engine's floor (npm run bench): `resources` dynamic resources whose provider does nothing and
// has no inputs. What an `up`, a refresh or a state costs for any dynamic resource, measured in the
// same run as the provider's own programs: a row's ratio is its time over this program's.
import * as pulumi from "@pulumi/pulumi";

const count = new pulumi.Config().requireNumber("resources", { min: 1, max: 1000 });

const noop: pulumi.dynamic.ResourceProvider = {
  create: async () => ({ id: "noop", outs: {} }),
};

class Noop extends pulumi.dynamic.Resource {
  constructor(name: string) {
    super(noop, name, {}, {}, "bench", "Noop");
  }
}

for (let i = 0; i < count; i++) new Noop(`noop-${i}`);
