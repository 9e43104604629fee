/** The serialized provider of BucketCredential resources: see ../shim.ts. */
import { newShim } from "../shim.js";

export = newShim("bucketCredentialProvider");
