/**
 * Imported for its effect, before anything else: turns on Node's on-disk compile cache
 * (`module.enableCompileCache`, Node >= 22.1) for every module the provider process loads after
 * this one. The engine starts a provider process for every `pulumi` operation, and compiling the
 * same files again is about a third of their load time: some 40 ms of the dynamic provider's own
 * modules and libraries, and several hundred for the executable provider, which loads
 * @pulumi/pulumi after it (bench/README.md, provider-start). The cache lives in the system's
 * temporary folder and Node checks it against each file's content; `NODE_DISABLE_COMPILE_CACHE=1`
 * turns it off.
 */
import * as nodeModule from "node:module";

try {
  nodeModule.enableCompileCache?.();
} catch {
  // A cache that cannot be used only costs the time it would have saved.
}
