/** Writing S3 responses: XML bodies, S3 XML errors, and headers every answer carries. */
import type { ServerResponse } from "node:http";
import type { S3Error } from "./errors.js";
import { xmlDocument, type XmlNode } from "./xml.js";

export function sendXml(res: ServerResponse, status: number, root: string, children: readonly XmlNode[]): void {
  const body = xmlDocument(root, children);
  res.writeHead(status, { "content-type": "application/xml", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Sends the error as S3 does: XML body (none for HEAD, where clients read only the status). */
export function sendError(
  res: ServerResponse,
  err: S3Error,
  requestId: string,
  resource: string,
  head: boolean,
  extraHeaders: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = xmlDocument(
    "Error",
    [
      ["Code", err.code],
      ["Message", err.message],
      ...Object.entries(err.details).map(([name, value]): XmlNode => [name, value]),
      ["Resource", resource],
      ["RequestId", requestId],
    ],
    false,
  );
  const headers: Record<string, string | number> = {
    "content-type": "application/xml",
    "x-amz-error-code": err.code,
    ...extraHeaders,
  };
  if (!head) headers["content-length"] = Buffer.byteLength(body);
  res.writeHead(err.status, headers);
  res.end(head ? undefined : body);
}

export function httpDate(iso: string): string {
  return new Date(iso).toUTCString();
}
