import { existsSync } from 'node:fs';

/** The system Chromium for browser tests: CHROME_PATH, else Debian's /usr/bin/chromium. */
export function findChromium(): string | undefined {
  const candidates = [
    process.env.CHROME_PATH,
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
  ];
  return candidates.find((p): p is string => Boolean(p) && existsSync(p as string));
}
