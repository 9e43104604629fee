/**
 * A refused management or inspection request: HTTP status plus the stable `code` of
 * docs/api-contract.md §2.1. Messages say what to do and never carry a secret.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const notFound = (what: string): ApiError => new ApiError(404, "not_found", `${what} does not exist`);

/** For `record ?? missing(…)` lookups. */
export function missing(what: string): never {
  throw notFound(what);
}

export const validationError = (message: string): ApiError => new ApiError(400, "validation_error", message);
