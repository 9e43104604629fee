/** The serialized provider of BucketCredential resources: this module's exports (see ../shim.ts). */
import { newShim } from "../shim.js";

const { delete: remove, ...methods } = newShim("bucketCredentialProvider");
export const { configure, check, diff, create, read, update } = methods;
export { remove as delete };
