/**
 * The serialized provider of Bucket resources: this module's exports (see ../shim.ts).
 * Loaded by the provider texts of states written before the text named the resource; not for
 * programs, never removed (docs/public-api.md).
 */
import { newShim } from "../shim.js";

const { delete: remove, ...methods } = newShim("bucketProvider");
export const { configure, check, diff, create, read, update } = methods;
export { remove as delete };
