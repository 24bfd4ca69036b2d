import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Paths pino blanks wherever they appear in a logged object. Logs are read by people
 * and shipped to third parties, so no password, code, token, hash or secret may reach them.
 */
const REDACT = [
  'password',
  'newPassword',
  'otp',
  'code',
  'token',
  'hash',
  'secret',
  'authorization',
  'cookie',
  // Accounts: Google ID tokens, recovery codes, stored hashes and sealed mail secrets.
  'credential',
  'recoveryCodes',
  'passwordHash',
  'password_hash',
  'sealed',
  '*.credential',
  '*.recoveryCodes',
  '*.passwordHash',
  '*.password_hash',
  '*.sealed',
  // Cloud PCs: the EC2 key pair, AWS keys, EC2's password data and stored passwords.
  'privateKeyPem',
  'secretAccessKey',
  'passwordData',
  'password_encrypted',
  '*.privateKeyPem',
  '*.secretAccessKey',
  '*.passwordData',
  '*.password_encrypted',
  '*.password',
  '*.newPassword',
  '*.otp',
  '*.code',
  '*.token',
  '*.hash',
  '*.secret',
  '*.authorization',
  '*.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

export function createLogger(options: { level: string; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: REDACT, censor: '[redacted]' },
  });
}
