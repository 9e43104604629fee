import { buildShape, emptyAnswer, jsonAnswer } from "./shape.js";

/** docs/api-contract.md §3–§8 as written: bare objects and arrays, `{"error": {code, message}}`. */
export const canonical = buildShape({
  name: "canonical",
  transcriptionApiKey: "raw",
  fields: (_kind, value) => ({ ...value }),
  object: (_kind, fields) => fields,
  list: (_kind, items) => items,
  stateSet: (fields) => jsonAnswer(200, fields),
  deleted: () => emptyAnswer(204),
  error: (error) => jsonAnswer(error.status, { error: { code: error.code, message: error.message } }, error.headers),
});
