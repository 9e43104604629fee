/** The serialized provider of Transcript resources: this module's exports (see ../shim.ts). */
import { newShim } from "../shim.js";

const { delete: remove, ...methods } = newShim("transcriptProvider");
export const { configure, check, diff, create, read, update } = methods;
export { remove as delete };
