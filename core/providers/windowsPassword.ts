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
 * One generic message whatever went wrong with the data: the details would help nobody but
 * someone probing the padding, and they must never reach a client.
 */
export class WindowsPasswordError extends Error {
  readonly reason: WindowsPasswordFailure;

  constructor(reason: WindowsPasswordFailure) {
    super('The Windows password could not be decrypted.');
    this.name = 'WindowsPasswordError';
    this.reason = reason;
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
  if (!BASE64.test(compact) || compact.length % 4 !== 0) throw new WindowsPasswordError('undecryptable');
  const ciphertext = Buffer.from(compact, 'base64');
  const modulusBytes = Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
  if (ciphertext.length !== modulusBytes) throw new WindowsPasswordError('undecryptable');

  let block: Buffer;
  try {
    block = privateDecrypt({ key, padding: constants.RSA_NO_PADDING }, ciphertext);
  } catch {
    throw new WindowsPasswordError('undecryptable');
  }
  if (block.length !== modulusBytes || block[0] !== 0x00 || block[1] !== 0x02)
    throw new WindowsPasswordError('undecryptable');
  const separator = block.indexOf(0x00, 2);
  if (separator < MIN_SEPARATOR_INDEX) throw new WindowsPasswordError('undecryptable');
  const message = block.subarray(separator + 1);
  if (message.length < MIN_LENGTH || message.length > MAX_LENGTH)
    throw new WindowsPasswordError('undecryptable');
  for (const byte of message) {
    // Printable ASCII only: anything else means the key or the data is wrong.
    if (byte < 0x20 || byte > 0x7e) throw new WindowsPasswordError('undecryptable');
  }
  return { status: 'ready', password: message.toString('ascii') };
}
