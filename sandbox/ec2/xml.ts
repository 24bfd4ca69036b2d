/**
 * EC2 Query responses written by template. The SDK only needs well-formed XML in EC2's
 * namespace with lists as `<item>` members, so a few escaping helpers beat an XML library.
 */

import { escapeXml } from '../xmlText.ts';

const EC2_NAMESPACE = 'http://ec2.amazonaws.com/doc/2016-11-15/';

/** An element around already-rendered XML; absent parts are skipped. */
export function node(name: string, ...children: Array<string | null | undefined | false>): string {
  return `<${name}>${children.filter((c) => typeof c === 'string').join('')}</${name}>`;
}

/** A text element, or nothing when the value is absent (EC2 omits empty fields). */
export function leaf(name: string, value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

/** A list the SDK reads from `<item>` members; EC2 leaves an empty set out entirely. */
export function items(name: string, members: string[]): string {
  if (members.length === 0) return '';
  return `<${name}>${members.map((m) => `<item>${m}</item>`).join('')}</${name}>`;
}

export function responseDocument(action: string, requestId: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${action}Response xmlns="${EC2_NAMESPACE}">${leaf('requestId', requestId)}${body}</${action}Response>`;
}

export function errorDocument(code: string, message: string, requestId: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Response><Errors><Error>${leaf('Code', code)}${leaf('Message', message)}</Error></Errors>${leaf('RequestID', requestId)}</Response>`;
}
