import { refusedLiteral, unbracket, type AddressPolicy } from "./address-policy.js";
import { ApiError, validationError } from "../api-error.js";

/**
 * The synchronous part of the URL rule: http(s) only, and an IP-literal host must be allowed.
 * Names are checked later on the address actually connected to (safe-fetch.ts).
 */
export function parseFetchableUrl(raw: string, field: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError(`${field} is not a valid URL; send an absolute http(s) URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ApiError(400, "url_not_allowed", `${field} must use http or https, not ${url.protocol.replace(":", "")}`);
  }
  if (url.username !== "" || url.password !== "") {
    throw validationError(`${field} must not carry user credentials; use a public or presigned URL`);
  }
  const host = unbracket(url.hostname);
  const range = refusedLiteral(host, policy);
  if (range !== undefined) {
    throw new ApiError(
      400,
      "url_not_allowed",
      `${field} points at ${host} (${range}); only public addresses can be fetched, use a public URL or upload the file`,
    );
  }
  return url;
}
