/**
 * The plugin's first import (main.ts): names the engine for `@pulumi/pulumi` before it reads its
 * settings (engine-address.ts).
 */
import { useEngineOf } from "./engine-address.js";

useEngineOf(process.argv.slice(2), process.env);
