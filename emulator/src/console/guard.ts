import type { IncomingMessage } from "node:http";
import { sameSecret } from "../constant-time.js";

/** The header that carries the console's token on every request that changes something. */
export const CONSOLE_TOKEN_HEADER = "x-emulator-console-token";

/** The page itself, the one /_emulator/ address another site may link to. */
export const CONSOLE_PAGE = "/_emulator/console";

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Why a request to /_emulator/ looks like another web page driving the user's browser, or
 * undefined when it does not. The loopback and Host checks already keep out other machines and
 * DNS rebinding; this keeps out a page on another origin (a site, or another local port) that sends
 * the browser to the emulator:
 * - a browser request from another site is refused, but for following a link to the page;
 * - a browser request that changes something (not GET or HEAD) must come from the console's own
 *   origin, be JSON (a cross-site HTML form cannot send that), and carry the token that only the
 *   page holds.
 * Programs (curl, tests, the soak) send neither Origin nor Sec-Fetch-Site and are unaffected.
 */
export function foreignBrowserRequest(req: IncomingMessage, pathname: string, token: string): string | undefined {
  const method = req.method ?? "GET";
  const readOnly = method === "GET" || method === "HEAD";
  const site = header(req, "sec-fetch-site");
  const mode = header(req, "sec-fetch-mode");
  const origin = header(req, "origin");
  const linkToPage = readOnly && mode === "navigate" && pathname.replace(/\/$/, "") === CONSOLE_PAGE;
  if (site !== undefined && site !== "same-origin" && site !== "none" && !linkToPage) {
    return `this request comes from another site (Sec-Fetch-Site: ${site})`;
  }
  // Node's fetch sends Sec-Fetch-Mode too, but no browser leaves out both of these on a change.
  if (readOnly || (origin === undefined && site === undefined)) return undefined;
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ""}`) {
    return "this request comes from another origin";
  }
  if (!/^application\/json\b/i.test(header(req, "content-type") ?? "")) {
    return "a browser must send changes as JSON (content-type: application/json)";
  }
  if (!sameSecret(header(req, CONSOLE_TOKEN_HEADER) ?? "", token)) {
    return `a browser must send changes from the console page, which adds its ${CONSOLE_TOKEN_HEADER} header`;
  }
  return undefined;
}
