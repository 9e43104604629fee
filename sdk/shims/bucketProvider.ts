/** The serialized provider of Bucket resources: see ../shim.ts. */
import { newShim } from "../shim.js";

export = newShim("bucketProvider");
