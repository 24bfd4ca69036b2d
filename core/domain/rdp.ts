/**
 * The Remote Desktop file (INTEGRATIONS.md "The .rdp file"): `name:type:value` lines, CRLF.
 * Built on every download from the machine's DNS name (core/domain/machineName.ts), which stays
 * the same at every start, or, without one, its current public IP, which changes at every start
 * (a file from before the last start then points nowhere). No password inside: the
 * `password 51:b:` blob is bound to one Windows user profile and does not travel; the customer pastes it.
 */

export const RDP_USERNAME = 'Administrator';
export const RDP_DEFAULT_PORT = 3389;

const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;
/** A DNS host name: lowercase labels of letters, digits and inner hyphens, at least two, 253 at most. */
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * An address a connection file may name: an IPv4 address read from EC2 or a host name of our
 * zone. Nothing else (no spaces, colons or line breaks) can reach a file's lines.
 */
export function isHostAddress(host: string): boolean {
  return IPV4.test(host) || HOST_NAME.test(host);
}

export function rdpFile(ip: string, port: number = RDP_DEFAULT_PORT): string {
  // Only ever an address we read from EC2 or our own name for it; refuse anything else rather than write it into a file.
  if (!isHostAddress(ip)) throw new Error('not an IPv4 address or a host name');
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error('not a TCP port');
  const address = port === RDP_DEFAULT_PORT ? ip : `${ip}:${port}`;
  const lines = [
    `full address:s:${address}`,
    `username:s:${RDP_USERNAME}`,
    'prompt for credentials:i:1',
    // EC2's Windows presents a self-signed certificate: warn, but let the customer connect.
    'authentication level:i:2',
    'screen mode id:i:2',
    'dynamic resolution:i:1',
    'audiomode:i:0',
    'redirectclipboard:i:1',
    'autoreconnection enabled:i:1',
  ];
  return `${lines.join('\r\n')}\r\n`;
}

/** The download's file name: one name, so a fresh download replaces the stale one. */
export const RDP_FILE_NAME = 'LegendCloud-PC.rdp';
export const PASSWORD_FILE_NAME = 'LegendCloud-PC-password.txt';
