import { constants, generateKeyPairSync, publicEncrypt, randomBytes, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptWindowsPassword, WindowsPasswordError } from './windowsPassword.ts';

function rsa(): { publicKey: KeyObject; privatePem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { publicKey, privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** What EC2 does: PKCS#1 v1.5 under the key pair's public key, base64. */
function encrypt(publicKey: KeyObject, password: string): string {
  return publicEncrypt(
    { key: publicKey, padding: constants.RSA_PKCS1_PADDING },
    Buffer.from(password, 'ascii'),
  ).toString('base64');
}

/** A hand-built padded block, to forge the malformed cases EC2 never sends. */
function rawBlock(publicKey: KeyObject, block: Buffer): string {
  return publicEncrypt({ key: publicKey, padding: constants.RSA_NO_PADDING }, block).toString('base64');
}

function padded(options: { type?: number; separatorAt?: number; message: Buffer }): Buffer {
  const block = Buffer.alloc(256);
  block[0] = 0x00;
  block[1] = options.type ?? 0x02;
  const separatorAt = options.separatorAt ?? 256 - options.message.length - 1;
  for (let i = 2; i < separatorAt; i++) block[i] = 1 + (i % 255);
  block[separatorAt] = 0x00;
  options.message.copy(block, separatorAt + 1);
  return block;
}

function failureOf(run: () => unknown): WindowsPasswordError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WindowsPasswordError);
    return error as WindowsPasswordError;
  }
  throw new Error('expected a WindowsPasswordError');
}

const right = rsa();
const PASSWORD = 'Xk9$mP;Qz2&hT7@wLr4!bN8*cV5(eJ3)';

describe('decryptWindowsPassword', () => {
  it('returns the password with the right key, also with the whitespace AWS wraps it in', () => {
    const data = encrypt(right.publicKey, PASSWORD);
    expect(decryptWindowsPassword(data, right.privatePem)).toEqual({ status: 'ready', password: PASSWORD });
    const wrapped = `\r\n${data.match(/.{1,64}/g)?.join('\r\n')}\r\n`;
    expect(decryptWindowsPassword(wrapped, right.privatePem)).toEqual({
      status: 'ready',
      password: PASSWORD,
    });
  });

  it('accepts PKCS#1 and PKCS#8 private key PEMs', () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const data = encrypt(publicKey, PASSWORD);
    for (const type of ['pkcs1', 'pkcs8'] as const) {
      expect(decryptWindowsPassword(data, privateKey.export({ type, format: 'pem' }).toString())).toEqual({
        status: 'ready',
        password: PASSWORD,
      });
    }
  });

  it('answers not-ready for empty password data', () => {
    expect(decryptWindowsPassword('', right.privatePem)).toEqual({ status: 'not-ready' });
    expect(decryptWindowsPassword(' \r\n ', right.privatePem)).toEqual({ status: 'not-ready' });
  });

  it('never returns anything for a wrong key: many keys, many ciphertexts, always the typed error', () => {
    const ciphertexts = Array.from({ length: 60 }, () =>
      encrypt(right.publicKey, randomBytes(24).toString('base64')),
    );
    for (let k = 0; k < 10; k++) {
      const wrong = rsa();
      for (const data of ciphertexts) {
        const error = failureOf(() => decryptWindowsPassword(data, wrong.privatePem));
        expect(error.reason).toBe('undecryptable');
        expect(error.message).toBe('The Windows password could not be decrypted.');
      }
    }
  }, 60_000);

  it('refuses tampered, truncated and non-base64 data', () => {
    const data = encrypt(right.publicKey, PASSWORD);
    const bytes = Buffer.from(data, 'base64');
    for (const position of [0, 1, 17, 128, 200, 255]) {
      const tampered = Buffer.from(bytes);
      tampered[position] = (tampered[position] ?? 0) ^ 0x5a;
      expect(
        failureOf(() => decryptWindowsPassword(tampered.toString('base64'), right.privatePem)).reason,
      ).toBe('undecryptable');
    }
    expect(
      failureOf(() => decryptWindowsPassword(bytes.subarray(0, 128).toString('base64'), right.privatePem))
        .reason,
    ).toBe('undecryptable');
    expect(
      failureOf(() =>
        decryptWindowsPassword(Buffer.concat([bytes, Buffer.from([1])]).toString('base64'), right.privatePem),
      ).reason,
    ).toBe('undecryptable');
    expect(failureOf(() => decryptWindowsPassword('not*base64!', right.privatePem)).reason).toBe(
      'undecryptable',
    );
    expect(failureOf(() => decryptWindowsPassword(data.slice(1), right.privatePem)).reason).toBe(
      'undecryptable',
    );
    // A value at or above the modulus cannot be RSA ciphertext under this key.
    expect(
      failureOf(() => decryptWindowsPassword(Buffer.alloc(256, 0xff).toString('base64'), right.privatePem))
        .reason,
    ).toBe('undecryptable');
  });

  it('says which check failed, data first, then the key: base64, length, padding', () => {
    const data = encrypt(right.publicKey, PASSWORD);
    const bytes = Buffer.from(data, 'base64');
    const wrong = rsa();
    expect(failureOf(() => decryptWindowsPassword('not*base64!', right.privatePem))).toMatchObject({
      check: 'base64',
      facts: { dataLength: 11 },
    });
    expect(
      failureOf(() => decryptWindowsPassword(bytes.subarray(0, 128).toString('base64'), right.privatePem)),
    ).toMatchObject({ check: 'length', facts: { bytes: 128, modulusBytes: 256 } });
    // Well-formed data under another key: the padding does not check out, so the key is blamed.
    expect(failureOf(() => decryptWindowsPassword(data, wrong.privatePem)).check).toBe('padding');
    expect(failureOf(() => decryptWindowsPassword(data, 'not a key')).check).toBe('key');
    // Never the data or the key in what it says.
    expect(failureOf(() => decryptWindowsPassword(data, wrong.privatePem)).message).not.toContain(
      data.slice(0, 16),
    );
  });

  it('checks the padding itself: block type, separator position, printable length', () => {
    const message = Buffer.from(PASSWORD, 'ascii');
    // The helper builds valid blocks: the control case.
    expect(decryptWindowsPassword(rawBlock(right.publicKey, padded({ message })), right.privatePem)).toEqual({
      status: 'ready',
      password: PASSWORD,
    });

    const refused = [
      padded({ type: 0x01, message }),
      padded({
        separatorAt: 9,
        message: Buffer.concat([Buffer.alloc(256 - 10 - message.length, 0x41), message]),
      }),
      padded({ message: Buffer.from('pass\x07word123', 'binary') }),
      padded({ message: Buffer.from('p\u00e9ssword-123', 'latin1') }),
      padded({ message: Buffer.from('short', 'ascii') }),
      padded({ message: Buffer.alloc(200, 0x41) }),
      Buffer.alloc(256, 0x00),
    ];
    for (const block of refused) {
      expect(
        failureOf(() => decryptWindowsPassword(rawBlock(right.publicKey, block), right.privatePem)).reason,
      ).toBe('undecryptable');
    }
  });

  it('calls an unusable private key a key problem, with the same generic message', () => {
    const data = encrypt(right.publicKey, PASSWORD);
    const ed25519 = generateKeyPairSync('ed25519')
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    for (const key of [
      '',
      'not a pem',
      ed25519,
      right.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    ]) {
      const error = failureOf(() => decryptWindowsPassword(data, key));
      expect(error.reason).toBe('invalid-key');
      expect(error.message).toBe('The Windows password could not be decrypted.');
    }
  });
});
