/**
 * The Authorization header of each attempt. The contract (§2) sends the API key raw everywhere; a
 * transcription API that wants `Bearer <api_key>` refuses that (401, or 403), so the Bearer form is
 * tried once and, if it is accepted, kept for the rest of the client's life (§2.3). A refused
 * request was not processed, so sending it again, even a create, is safe.
 */
import type { Settings } from "../config.js";
import type { Answer, Base } from "./types.js";

/** A refused credential: 401, and 403 on platforms that use it for that (contract §2.3). */
export function refusedCredential(status: number): boolean {
  return status === 401 || status === 403;
}

/**
 * Sends with the Authorization form this client uses for `base`. `bearerBases`: the bases that took
 * the Bearer form after refusing the raw key, kept by the client and added to here.
 */
export async function authenticate(
  auth: Settings["auth"],
  base: Base,
  bearerBases: Set<Base>,
  send: (authorization: string) => Promise<Answer>,
): Promise<Answer> {
  const contract = auth.kind === "apiKey" ? auth.value : `Bearer ${auth.value}`;
  const bearer = base === "transcription" && auth.kind === "apiKey" ? `Bearer ${auth.value}` : undefined;
  if (bearer === undefined) return send(contract);
  if (bearerBases.has(base)) return send(bearer);
  const first = await send(contract);
  if (first.kind !== "reply" || !refusedCredential(first.status)) return first;
  const second = await send(bearer);
  if (second.kind === "reply" && !refusedCredential(second.status)) bearerBases.add(base);
  return second;
}
