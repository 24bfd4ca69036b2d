/**
 * Text placed inside HTML or XML that we write (mail bodies, the sitemap, the answer to Amazon
 * DCV's token check): the five characters that could end a text node or an attribute become
 * references that both HTML and XML read back as the same text. `&#39;` rather than `&apos;`,
 * which older HTML mail clients do not know.
 */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}
