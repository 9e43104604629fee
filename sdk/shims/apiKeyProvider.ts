/** The serialized provider of ApiKey resources: see ../shim.ts. */
import { newShim } from "../shim.js";

export = newShim("apiKeyProvider");
