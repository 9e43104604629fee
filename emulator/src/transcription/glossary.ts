/**
 * Applies a glossary (heard → written) to a text: whole words only, case-insensitive, in one pass
 * so a replacement is never replaced again; longer keys win over shorter overlapping ones.
 */
export function applyGlossary(text: string, glossary: Readonly<Record<string, string>>): string {
  const entries = new Map<string, string>();
  for (const [heard, written] of Object.entries(glossary)) entries.set(heard.toLocaleLowerCase(), written);
  if (entries.size === 0) return text;
  const alternatives = [...entries.keys()].sort((a, b) => b.length - a.length).map(escapeRegExp);
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join("|")})(?![\\p{L}\\p{N}_])`, "giu");
  return text.replace(pattern, (match) => entries.get(match.toLocaleLowerCase()) ?? match);
}

function escapeRegExp(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
