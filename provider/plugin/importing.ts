/**
 * The host's side of `pulumi import`. Each core says how it is imported (`ResourceCore.importing`);
 * this host turns that into where read starts, or into the refusal the engine shows.
 */
import type { ImportTarget } from "../core.js";
import { ImportUnsupportedError } from "../errors.js";
import type { AnyCore } from "./cores.js";

/** The id a core expects, whether the engine hands the import id or the id the core returned. */
export function coreId(core: AnyCore, id: string): string {
  const importing = core.importing;
  return importing?.supported === true && importing.coreId !== undefined ? importing.coreId(id) : id;
}

export function importTarget(core: AnyCore, importId: string): ImportTarget<unknown> {
  const importing = core.importing;
  if (importing?.supported !== true) {
    const reason =
      importing?.reason ?? "it cannot be read back from an id alone; declare the resource in the program instead";
    throw new ImportUnsupportedError(`${core.type} cannot be imported: ${reason}`);
  }
  return importing.target(importId);
}
