import { z } from "zod";
import type { StateStore } from "../state.js";
import { parseBody } from "./body.js";
import { objectReply } from "../replies.js";
import type { Route } from "../router.js";

/** POST /security/apikey (docs/api-contract.md §3): rotates; the previous key fails at once. */
export function apiKeyRoutes(state: StateStore): Route[] {
  return [
    {
      method: "POST",
      path: "/security/apikey",
      async handle({ req }) {
        await parseBody(req, z.strictObject({}), {});
        // The emulator always has a key (it prints one when ready), so this is always a rotation.
        return objectReply("api_key", state.rotateApiKey());
      },
    },
  ];
}
