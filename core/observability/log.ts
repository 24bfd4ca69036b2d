import { pino, type DestinationStream, type Logger } from 'pino';
import pretty from 'pino-pretty';

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
  '*.token',
  '*.hash',
  '*.secret',
  '*.authorization',
  '*.cookie',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/** Where an error is logged (pino's `err`, or `error` by hand): its code is kept there. */
const ERROR_KEYS = new Set(['err', 'error']);

/**
 * `*.code` as a redaction path would blank an error's code too (`ECONNREFUSED`, `Z_DATA_ERROR`,
 * `23505`), which is what an operator needs to see, and pino's wildcard does not say under which
 * key it matched. So a nested `code` is blanked here instead, except under `err` and `error`.
 * (A top-level `code` is in REDACT; an error's `name` is never redacted.)
 */
function blankNestedCodes(object: Record<string, unknown>): Record<string, unknown> {
  let out = object;
  for (const [key, value] of Object.entries(object)) {
    if (ERROR_KEYS.has(key) || value === null || typeof value !== 'object' || !('code' in value)) continue;
    if (out === object) out = { ...object };
    out[key] = { ...(value as object), code: '[redacted]' };
  }
  return out;
}

export function createLogger(options: {
  level: string;
  name: string;
  /** Where lines go (stdout unless given; tests read them). */
  destination?: DestinationStream;
  /**
   * `pretty`: one readable, coloured line per entry, for a person at a terminal (`npm start`);
   * `json`: one JSON object per line, for whatever collects the logs. Stdout's kind decides
   * unless given: a terminal gets `pretty`, a pipe or a file `json`.
   */
  format?: 'json' | 'pretty';
}): Logger {
  const settings = {
    name: options.name,
    level: options.level,
    redact: { paths: REDACT, censor: '[redacted]' },
    formatters: { log: blankNestedCodes },
  };
  const format = options.format ?? (options.destination || !process.stdout.isTTY ? 'json' : 'pretty');
  if (format === 'pretty') {
    // In-process and synchronous (no worker thread): a line logged just before exit is not lost.
    return pino(
      settings,
      pretty({
        destination: options.destination ?? 1,
        sync: true,
        colorize: !options.destination,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname',
      }),
    );
  }
  return pino(settings, options.destination ?? stdout());
}

/**
 * A logger for lines whose every field our code sets and none can hold a secret (the access
 * log: request id, method, masked path, status, milliseconds). It writes where `log` writes,
 * with its name, bindings and level, but without the redaction pass: pino runs every value of
 * a line through each wildcard path above, which cost a request more than writing its line.
 */
export function unredacted(log: Logger): Logger {
  const stream = (log as unknown as Record<symbol, DestinationStream>)[pino.symbols.streamSym];
  return pino({ level: log.level, base: null }, stream).child(log.bindings());
}

let destination: DestinationStream | undefined;
/**
 * Where every logger of the process writes: stdout, asynchronously. A synchronous write per
 * line stalls the event loop whenever stdout is slow (a busy disk, a pipe, a log collector
 * falling behind); pino's asynchronous destination writes the lines that gathered while the
 * previous write ran in one go, and flushes what is left when the process exits.
 */
function stdout(): DestinationStream {
  return (destination ??= pino.destination({ dest: 1, sync: false }));
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
