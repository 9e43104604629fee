import { buildShape, emptyAnswer, jsonAnswer } from "./shape.js";

/**
 * A platform that wraps every JSON answer in `data` (JSON:API-like): lists also carry
 * `meta.count` (and, paged, `meta.page` and `meta.total_pages`), errors are `{"errors": [{code, detail}]}`. Fields and identifiers as canonical.
 */
export const envelope = buildShape({
  name: "envelope",
  transcriptionApiKey: "raw",
  fields: (_kind, value) => ({ ...value }),
  object: (_kind, fields) => ({ data: fields }),
  paging: "page-number",
  list: (_kind, items, page) => ({
    data: items,
    meta: { count: items.length, ...(page ? { page: page.page, total_pages: page.pages } : {}) },
  }),
  stateSet: (fields) => jsonAnswer(200, { data: fields }),
  deleted: () => emptyAnswer(204),
  error: (error) => jsonAnswer(error.status, { errors: [{ code: error.code, detail: error.message }] }, error.headers),
});
