import type { CredentialDirectory } from "./interfaces.js";
import type { StateStore } from "./state.js";

/** The S3 plane's view of the management state (docs/api-contract.md §7); always current. */
export function credentialDirectory(state: StateStore): CredentialDirectory {
  return {
    lookup(accessKeyId) {
      const cred = state.getCredential(accessKeyId);
      if (cred === undefined) return undefined;
      const bucket = state.getBucket(cred.bucket_id);
      if (bucket === undefined) return undefined;
      return { secretAccessKey: cred.secret_access_key, bucketName: bucket.name, active: cred.active };
    },
    bucketExists(bucketName) {
      return state.bucketByName(bucketName) !== undefined;
    },
  };
}
