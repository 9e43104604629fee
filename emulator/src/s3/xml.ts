/** Minimal XML writing for S3 responses: S3 answers are small fixed shapes, so no builder is needed. */

const S3_NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/";

/** A child element: a leaf with text, a nested list of children, or nothing (omitted). */
export type XmlNode = readonly [name: string, content: string | number | boolean | readonly XmlNode[]] | undefined;

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(node: XmlNode): string {
  if (!node) return "";
  const [name, content] = node;
  const inner = Array.isArray(content)
    ? (content as readonly XmlNode[]).map(render).join("")
    : escapeXml(String(content));
  return `<${name}>${inner}</${name}>`;
}

/** A whole document whose root element carries the S3 namespace (what SDK parsers expect). */
export function xmlDocument(root: string, children: readonly XmlNode[], namespace = true): string {
  const ns = namespace ? ` xmlns="${S3_NAMESPACE}"` : "";
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${ns}>${children.map(render).join("")}</${root}>`;
}
