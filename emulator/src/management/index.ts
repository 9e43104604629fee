import type { ObjectStoreApi } from "../interfaces.js";
import { inArea, type AreaRoute } from "../router.js";
import type { StateStore } from "../state.js";
import { apiKeyRoutes } from "./apikey.js";
import { bucketRoutes } from "./buckets.js";
import { credentialRoutes } from "./credentials.js";
import { zoneRoutes } from "./zones.js";

/** The management API of docs/api-contract.md §3–§6. */
export function managementRoutes(
  state: StateStore,
  /** Resolved late: the S3 plane is created after the management state it reads. */
  objects: () => ObjectStoreApi,
): AreaRoute[] {
  return inArea("management", [
    ...apiKeyRoutes(state),
    ...zoneRoutes(state),
    ...bucketRoutes(state, objects),
    ...credentialRoutes(state),
  ]);
}
