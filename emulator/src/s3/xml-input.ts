/** Parsing the few XML request bodies S3 takes (DeleteObjects, CompleteMultipartUpload). */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { malformedXml } from "./errors.js";

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  // Keys may begin or end with spaces; they must survive parsing.
  trimValues: false,
  isArray: (name) => name === "Object" || name === "Part",
});

export type XmlValue = string | { readonly [name: string]: XmlValue | XmlValue[] };

export function parseXmlBody(body: Buffer, root: string): Record<string, XmlValue | XmlValue[]> {
  const text = body.toString("utf8");
  if (XMLValidator.validate(text) !== true) throw malformedXml("the body is not well-formed XML");
  const doc = parser.parse(text) as Record<string, unknown>;
  const top = doc[root];
  if (top === undefined) throw malformedXml(`the root element must be <${root}>`);
  return typeof top === "object" && top !== null ? (top as Record<string, XmlValue | XmlValue[]>) : {};
}

/** Text content of a leaf element; an empty element parses as "". */
export function text(value: XmlValue | XmlValue[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return text(value[0]);
  return "";
}
