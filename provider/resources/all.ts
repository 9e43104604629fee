/**
 * Every resource core, once: what each host serves (the dynamic SDK by type name, the executable
 * provider by type token). A new resource is one entry here.
 */
import type { AnyCore } from "../contract.js";
import { apiKeyCore } from "./api-key/core.js";
import { bucketCore } from "./bucket/core.js";
import { bucketCredentialCore } from "./bucket-credential/core.js";
import { bucketObjectCore } from "./bucket-object/core.js";
import { dnsZoneCore } from "./dns-zone/core.js";
import { syncedFolderCore } from "./synced-folder/core.js";
import { rotatingBucketCredentialCore } from "./rotating-bucket-credential/core.js";
import { transcriptCore } from "./transcript/core.js";

export const cores: readonly AnyCore[] = [
  apiKeyCore,
  dnsZoneCore,
  bucketCore,
  bucketCredentialCore,
  rotatingBucketCredentialCore,
  transcriptCore,
  bucketObjectCore,
  syncedFolderCore,
] as unknown as readonly AnyCore[];
