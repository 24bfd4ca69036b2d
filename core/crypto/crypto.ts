import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  hash,
  hkdfSync,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';

/**
 * The product's secrets at rest and its tokens, all keyed from APP_SECRET.
 *
 * - `encrypt` / `decrypt`: AES-256-GCM with a key derived per purpose (HKDF-SHA256), so a key
 *   leaked or misused for one purpose (say, mail secrets) opens nothing else (2FA secrets,
 *   Windows passwords). The purpose is also the associated data: a ciphertext moved to
 *   another column does not decrypt.
 * - `randomToken` + `hashToken`: high-entropy tokens (session cookies, reset links) are stored
 *   as a plain SHA-256; guessing one is hopeless, so no key is needed.
 * - `hashCode`: low-entropy secrets (6-digit codes, recovery codes) are stored as an HMAC under
 *   a server-side key (a pepper): with the table alone, a million guesses open nothing.
 *
 * Changing APP_SECRET makes every encrypted value and every code hash unreadable (sessions
 * and reset links survive, being plain hashes).
 */

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SALT = 'legend-cloud/app-secret/v1';

export type KeyPurpose = string;

const keys = new Map<string, Buffer>();

/** A 32-byte key for one purpose, derived from the app secret (cached: HKDF per call is waste). */
function deriveKey(appSecret: string, purpose: KeyPurpose): Buffer {
  const cacheKey = `${purpose}\u0000${appSecret}`;
  let key = keys.get(cacheKey);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', appSecret, SALT, `legend-cloud:${purpose}`, 32));
    keys.set(cacheKey, key);
  }
  return key;
}

export class DecryptError extends Error {
  override name = 'DecryptError';
}

/** Encrypts text for `purpose`. The result is ASCII (`v1.<base64url>`), safe in text columns and JSON. */
export function encrypt(appSecret: string, purpose: KeyPurpose, plaintext: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', deriveKey(appSecret, purpose), iv);
  cipher.setAAD(Buffer.from(purpose, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return `${VERSION}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** Opens what `encrypt` sealed for the same purpose; throws DecryptError (no detail) otherwise. */
export function decrypt(appSecret: string, purpose: KeyPurpose, sealed: string): string {
  const [version, data] = sealed.split('.', 2);
  if (version !== VERSION || !data) throw new DecryptError('unsupported ciphertext');
  const raw = Buffer.from(data, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new DecryptError('ciphertext too short');
  try {
    const decipher = createDecipheriv(
      'aes-256-gcm',
      deriveKey(appSecret, purpose),
      raw.subarray(0, IV_BYTES),
    );
    decipher.setAAD(Buffer.from(purpose, 'utf8'));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new DecryptError('ciphertext does not open with this key');
  }
}

/** A URL-safe random token (default 256 bits). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A string of `length` random decimal digits (uniform, leading zeros kept). */
export function randomDigits(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += String(randomInt(10));
  return out;
}

/** SHA-256 (hex) of a high-entropy token, for lookup by hash. */
export function hashToken(token: string): string {
  // The one-shot hash: this runs on every signed-in request (the session cookie's lookup).
  return hash('sha256', token, 'hex');
}

/** HMAC-SHA256 (hex) of a low-entropy secret under a key only the server holds. */
export function hashCode(appSecret: string, purpose: KeyPurpose, code: string): string {
  return createHmac('sha256', deriveKey(appSecret, `code-pepper:${purpose}`))
    .update(code, 'utf8')
    .digest('hex');
}

/** Compares two strings in time independent of where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    // Still spend the comparison so the length check is not the only timing signal.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
