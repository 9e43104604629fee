/** Parsing the few XML request bodies S3 takes (DeleteObjects, CompleteMultipartUpload). */
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { malformedXml } from "./errors.js";

const PREDEFINED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

/**
 * Replaces XML's references in one pass: the five predefined entities and character references.
 * Go's encoding/xml writes `"` as `&#34;` (an ETag in CompleteMultipartUpload), and a key may hold
 * any character as `&#xD;`; the parser's own decoding knows only the named ones. One pass, so that
 * `&amp;#34;` stays the text `&#34;`.
 */
function decodeReferences(text: string): string {
  return text.replace(/&([^;&\s]*);?/g, (reference: string, name: string) => {
    if (!reference.endsWith(";")) throw malformedXml("an '&' does not start an entity or character reference");
    const named = PREDEFINED[name];
    if (named !== undefined) return named;
    const m = /^#(?:x([0-9a-fA-F]{1,6})|([0-9]{1,7}))$/.exec(name);
    const code = m ? (m[1] !== undefined ? parseInt(m[1], 16) : Number(m[2])) : NaN;
    if (!(code >= 0 && code <= 0x10ffff) || (code >= 0xd800 && code <= 0xdfff)) {
      throw malformedXml(`'${reference}' is not a reference XML defines`);
    }
    return String.fromCodePoint(code);
  });
}

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  // Keys may begin or end with spaces; they must survive parsing.
  trimValues: false,
  processEntities: false,
  tagValueProcessor: (_name, value) => decodeReferences(value),
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
