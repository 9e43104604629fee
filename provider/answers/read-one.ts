/** One object by id, where a platform may have no route for it. */
import { CloudPlatformError, NotFoundError } from "../errors.js";
import type { Reader } from "./find.js";
import type { ReadingClient } from "./paging.js";

/** Routes a platform turned out not to have, per client (so per settings and run): `GET …/{id}` of a kind. */
const missingRoutes = new WeakMap<ReadingClient, Set<string>>();

function routesMissing(client: ReadingClient): Set<string> {
  let missing = missingRoutes.get(client);
  if (missing === undefined) missingRoutes.set(client, (missing = new Set()));
  return missing;
}

/**
 * One object by id. A platform without that route (405, 501, or 404 while the list still has the
 * object) is answered from the list, and the list answers for the rest of the run; a 404 of an
 * object the list does not have either means the object is gone.
 */
export async function readOne<T extends { id: string }>(
  client: ReadingClient,
  kind: string,
  path: string,
  schema: Reader<T>,
  list: () => Promise<T[]>,
  id: string,
): Promise<T> {
  const missing = routesMissing(client);
  const fromList = async () => (await list()).find((item) => item.id === id);
  let found: T | undefined;
  if (missing.has(kind)) {
    found = await fromList();
  } else {
    try {
      return (await client.request({ method: "GET", path, schema })).data;
    } catch (err) {
      const status = CloudPlatformError.isInstance(err) ? err.status : undefined;
      if (status !== 404 && status !== 405 && status !== 501) throw err;
      found = await fromList();
      if (found === undefined && status === 404) throw err;
      missing.add(kind);
    }
  }
  if (found !== undefined) return found;
  throw new NotFoundError(
    `GET ${path}: no ${kind} ${id} in the list of ${kind}s`,
    "The object does not exist (it may have been deleted outside Pulumi).",
    { endpoint: `GET ${path}` },
  );
}
