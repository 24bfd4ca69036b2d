/**
 * Which email addresses the product takes: ones mail can be delivered to. The forms (before a
 * round trip) and the API (zod, api/fields.ts) both ask `checkEmail`, so they say the same.
 *
 * - The part before the @ is an RFC 5322 dot-atom in ASCII: letters, digits and
 *   ! # $ % & ' * + - / = ? ^ _ ` { | } ~, dots between them. Quoted local parts ("a b"@x) and
 *   non-ASCII ones (RFC 6531, which most mail servers do not accept) are refused.
 * - The domain is a host name of at least two labels (letters, digits, hyphens) whose top
 *   level is not a number. An internationalised domain ("bücher.de") is taken and kept as its
 *   punycode ("xn--bcher-kva.de"), converted by the platform's own IDNA mapping (WHATWG URL,
 *   the same in Node and browsers); IP literals are refused.
 * - Trimmed and lower-cased (spec §5 "Email is lower-cased"); at most 254 characters (RFC 5321).
 */

export const EMAIL_MAX_LENGTH = 254;
const LOCAL_MAX_LENGTH = 64;
const DOMAIN_MAX_LENGTH = 253;

export const EMAIL_MESSAGES = {
  required: 'Email is required.',
  invalid: 'Enter a valid email address.',
  tooLong: `An email address can be at most ${EMAIL_MAX_LENGTH} characters.`,
  localCharacters:
    'Before the @, an email address can only have English letters, digits and symbols such as . _ + - (no spaces, emoji, quotes or < >).',
  localDots: 'An email address cannot start with a dot, have two dots in a row, or a dot just before the @.',
  domain: 'After the @, enter a real domain, like gmail.com.',
} as const;

export type EmailCheck = { ok: true; email: string } | { ok: false; message: string };

const ATEXT = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+$/;
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TOP_LEVEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;
// Characters that would make URL read a host as something else (a port, a path, a userinfo).
const NOT_IN_A_HOST = /[\s/\\?#:@[\]%<>"'`^|{}]/;

/** Emails are compared and stored trimmed and lower-cased (spec §5). */
export function normaliseEmail(value: string): string {
  return value.trim().toLowerCase();
}

/** The address as we store it (lower-case, punycode domain), or the sentence that says what is wrong. */
export function checkEmail(value: string): EmailCheck {
  const email = normaliseEmail(value);
  if (email === '') return { ok: false, message: EMAIL_MESSAGES.required };
  if (email.length > EMAIL_MAX_LENGTH * 4) return { ok: false, message: EMAIL_MESSAGES.tooLong };
  const at = email.lastIndexOf('@');
  if (at <= 0 || at === email.length - 1) return { ok: false, message: EMAIL_MESSAGES.invalid };
  const local = email.slice(0, at);
  const domain = asciiDomain(email.slice(at + 1));

  const problem = localProblem(local);
  if (problem) return { ok: false, message: problem };
  if (domain === null) return { ok: false, message: EMAIL_MESSAGES.domain };
  const stored = `${local}@${domain}`;
  if (stored.length > EMAIL_MAX_LENGTH) return { ok: false, message: EMAIL_MESSAGES.tooLong };
  return { ok: true, email: stored };
}

/** The sentence for an address that is not deliverable, or null when it is. */
export function emailProblem(value: string): string | null {
  const check = checkEmail(value);
  return check.ok ? null : check.message;
}

function localProblem(local: string): string | null {
  if (local.length > LOCAL_MAX_LENGTH) return EMAIL_MESSAGES.tooLong;
  const atoms = local.split('.');
  if (atoms.some((atom) => atom !== '' && !ATEXT.test(atom))) return EMAIL_MESSAGES.localCharacters;
  if (atoms.some((atom) => atom === '')) return EMAIL_MESSAGES.localDots;
  return null;
}

/** The domain in ASCII (IDNA to punycode), or null when it is not a deliverable host name. */
function asciiDomain(domain: string): string | null {
  if (domain === '' || NOT_IN_A_HOST.test(domain)) return null;
  let host: string;
  try {
    host = new URL(`http://${domain}/`).hostname;
  } catch {
    return null;
  }
  const labels = host.split('.');
  const top = labels.at(-1) ?? '';
  if (host.length > DOMAIN_MAX_LENGTH || labels.length < 2) return null;
  if (!labels.every((label) => LABEL.test(label)) || !TOP_LEVEL.test(top)) return null;
  return host;
}
