import { toDynamicProvider } from "../dynamic.js";
import { transcriptCore } from "../resources/transcript.js";

/** The Transcript core served as a dynamic provider; the SDK shim looks it up by this export name. */
export const transcriptProvider = toDynamicProvider(transcriptCore);
