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

/**
 * Runs `shutdown` on SIGTERM and SIGINT. A shutdown that fails is logged where the rest of the
 * logs go, and the process still ends (exit 1), rather than crashing on an unhandled rejection.
 */
export function onStopSignals(log: Logger, shutdown: (signal: string) => Promise<void>): void {
  const stop = (signal: string) =>
    shutdown(signal).catch((error: unknown) => {
      log.error({ err: error, signal }, 'shutdown failed');
      process.exit(1);
    });
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
