/**
 * The browser desktop: Amazon DCV's web client on the customer's machine, opened with a
 * one-time token our site mints and DCV sends back to us to verify (DCV's "external
 * authenticator"). Pure rules and words shared by the API and the dashboard.
 */
import { RDP_USERNAME } from './rdp.ts';

/** How long a minted token may wait for DCV to present it. */
export const DESKTOP_TOKEN_TTL_SECONDS = 60;

/** The port DCV's server (and web client) listens on: TCP, and UDP for QUIC. */
export const DCV_PORT = 8443;

/** Windows DCV runs one session, the console, under this id; the URL's fragment names it. */
export const DCV_SESSION_ID = 'console';

/**
 * The user DCV is told the token stands for. The image makes the console session Administrator's
 * (the account whose password the dashboard hands out), so only that name may connect to it.
 */
export const DCV_USERNAME = RDP_USERNAME;

/** Our DCV external authenticator; the image recipe sets DCV's `auth-token-verifier` to PUBLIC_URL + this. */
export const DCV_AUTH_PATH = '/api/dcv/auth';

/**
 * Where DCV's web client is in production: `{host}` is the machine's DNS name when it has one
 * that leads to it (core/domain/machineName.ts), else its public address; `{ip}` is always the address.
 */
export const DCV_WEB_URL_DEFAULT = `https://{host}:${DCV_PORT}/`;

/**
 * The web-client link with the token: `https://<host>:8443/?authToken=<token>#console`. The token
 * goes in the query (DCV's web client reads it there); the fragment names the session.
 */
export function desktopUrl(template: string, ip: string, token: string, host: string = ip): string {
  const url = new URL(template.replaceAll('{ip}', ip).replaceAll('{host}', host));
  url.searchParams.set('authToken', token);
  url.hash = DCV_SESSION_ID;
  return url.toString();
}

/** Why a verification was refused (recorded; DCV is told only "no" and a plain message). */
export const DCV_OUTCOMES = [
  'accepted',
  'unknown',
  'used',
  'expired',
  'wrong-machine',
  'not-running',
  'wrong-session',
] as const;
export type DcvOutcome = (typeof DCV_OUTCOMES)[number];

export const DESKTOP_MESSAGES = {
  open: 'Open in browser',
  opening: 'Opening…',
  hint: 'Your desktop in a browser tab, no app to install. The link works once, for a minute.',
  notRunning: 'Your PC must be running to open it in the browser. Start it first.',
  popupBlocked: 'Your browser blocked the new tab. Allow pop-ups for this site, or use this link:',
  failed: 'Could not open your desktop in the browser. Please try again.',
  refused: 'This desktop link is not valid. Open it again from your dashboard.',
} as const;
