import { constants, createPrivateKey, privateDecrypt, type KeyObject } from 'node:crypto';

/**
 * Decrypting EC2's `PasswordData`: the Windows administrator password, RSA-encrypted with
 * PKCS#1 v1.5 padding under the launch key pair's public key, base64-encoded.
 *
 * We decrypt with RSA_NO_PADDING and check the padding ourselves. Node 20 refuses
 * RSA_PKCS1_PADDING for private decryption, and Node 22/24 accept it but hand back random
 * bytes for a wrong key instead of failing (implicit rejection, the Marvin countermeasure):
 * garbage that would be shown to a customer as their password. Checking the block ourselves
 * behaves the same on every version and fails loudly.
 */

export type WindowsPasswordResult = { status: 'ready'; password: string } | { status: 'not-ready' };

export type WindowsPasswordFailure =
  /** The configured private key could not be used: a configuration problem. */
  | 'invalid-key'
  /** The data is not a password under this key: wrong key pair, corrupt or tampered data. */
  | 'undecryptable';

/**
 * Which check the data failed, in order: it must be base64 (`base64`), as long as the key's
 * modulus (`length`), then carry PKCS#1 v1.5 padding under this key (`padding`: the key is not
 * the one EC2 encrypted to), and hold a printable password (`content`). Well-formed data that
 * fails the padding points at the key; data that fails the first two points at the data.
 */
export type WindowsPasswordCheck = 'key' | 'base64' | 'length' | 'padding' | 'content';

/**
 * One generic message whatever went wrong with the data: the details would help nobody but
 * someone probing the padding, and they must never reach a client. Which check failed (and the
 * sizes it compared) is kept apart, for the operator's alert only.
 */
export class WindowsPasswordError extends Error {
  readonly reason: WindowsPasswordFailure;
  readonly check: WindowsPasswordCheck;
  /** For operators: the sizes compared (never the data or the key). */
  readonly facts: { dataLength?: number; bytes?: number; modulusBytes?: number };

  constructor(
    reason: WindowsPasswordFailure,
    check: WindowsPasswordCheck = reason === 'invalid-key' ? 'key' : 'padding',
    facts: WindowsPasswordError['facts'] = {},
  ) {
    super('The Windows password could not be decrypted.');
    this.name = 'WindowsPasswordError';
    this.reason = reason;
    this.check = check;
    this.facts = facts;
  }
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
/** 0x00 0x02, at least 8 bytes of non-zero padding, then the 0x00 separator. */
const MIN_SEPARATOR_INDEX = 10;
const MIN_LENGTH = 8;
const MAX_LENGTH = 128;

function loadKey(privateKeyPem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch {
    throw new WindowsPasswordError('invalid-key');
  }
  // Only RSA key pairs work for Windows password data (not ED25519).
  if (key.asymmetricKeyType !== 'rsa') throw new WindowsPasswordError('invalid-key');
  return key;
}

export function decryptWindowsPassword(passwordData: string, privateKeyPem: string): WindowsPasswordResult {
  // AWS wraps the blob in whitespace and line breaks.
  const compact = passwordData.replace(/\s+/g, '');
  if (compact === '') return { status: 'not-ready' };
  const key = loadKey(privateKeyPem);
  if (!BASE64.test(compact) || compact.length % 4 !== 0)
    throw new WindowsPasswordError('undecryptable', 'base64', { dataLength: compact.length });
  const ciphertext = Buffer.from(compact, 'base64');
  const modulusBytes = Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
  if (ciphertext.length !== modulusBytes)
    throw new WindowsPasswordError('undecryptable', 'length', { bytes: ciphertext.length, modulusBytes });

  const padding = () => new WindowsPasswordError('undecryptable', 'padding', { modulusBytes });
  let block: Buffer;
  try {
    block = privateDecrypt({ key, padding: constants.RSA_NO_PADDING }, ciphertext);
  } catch {
    throw padding();
  }
  if (block.length !== modulusBytes || block[0] !== 0x00 || block[1] !== 0x02) throw padding();
  const separator = block.indexOf(0x00, 2);
  if (separator < MIN_SEPARATOR_INDEX) throw padding();
  const message = block.subarray(separator + 1);
  if (message.length < MIN_LENGTH || message.length > MAX_LENGTH)
    throw new WindowsPasswordError('undecryptable', 'content', { bytes: message.length });
  for (const byte of message) {
    // Printable ASCII only: anything else means the key or the data is wrong.
    if (byte < 0x20 || byte > 0x7e) throw new WindowsPasswordError('undecryptable', 'content');
  }
  return { status: 'ready', password: message.toString('ascii') };
}
