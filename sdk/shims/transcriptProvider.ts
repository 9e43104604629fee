/** The serialized provider of Transcript resources: see ../shim.ts. */
import { newShim } from "../shim.js";

export = newShim("transcriptProvider");
