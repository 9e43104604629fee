/**
 * Where the engine is: it starts the plugin as `pulumi-resource-cloudplatform [--logtostderr]
 * [-v=N] [--tracing <addr>] <engine address>`, and `@pulumi/pulumi/log` writes to the engine only
 * when `PULUMI_NODEJS_ENGINE` names it. Set from the arguments (engine-env.ts, imported first by
 * main.ts), the provider's lines (a rotation due, a credential changed outside Pulumi) reach the
 * CLI's output as they do from the dynamic provider, instead of the plugin's stderr, which the CLI
 * shows only with verbose logging.
 */

/** The engine's address among the plugin's arguments, as `@pulumi/pulumi/provider` reads it. */
export function engineAddress(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === "--tracing") i++;
    else if (arg !== "--logtostderr" && !arg.startsWith("-v=")) return arg;
  }
  return undefined;
}

/** Names the engine of `args` in `env` for `@pulumi/pulumi`, unless something named one already. */
export function useEngineOf(args: readonly string[], env: NodeJS.ProcessEnv): void {
  const address = engineAddress(args);
  if (address !== undefined && env["PULUMI_NODEJS_ENGINE"] === undefined) env["PULUMI_NODEJS_ENGINE"] = address;
}
