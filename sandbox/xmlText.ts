/**
 * XML text for the stand-ins that speak XML (EC2's Query API, Route 53's REST API, DCV's auth
 * verifier): values escaped into elements and read back out of them.
 */

const SPECIAL = /[&<>"']/;

export function escapeXml(value: string): string {
  // Almost every value (ids, states, dates) has nothing to escape: a page of 1,000 instances
  // renders tens of thousands of them.
  if (!SPECIAL.test(value)) return value;
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** The five named entities and numeric ones; `&amp;` last so `&amp;lt;` reads as `&lt;`. */
export function unescapeXml(value: string): string {
  return value
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&apos;', "'")
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replaceAll('&amp;', '&');
}
