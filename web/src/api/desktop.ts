import { api } from './fetcher.ts';

/** "Open in browser": a one-time link to DCV's web client on the customer's running machine. */
export async function mintDesktopLink(): Promise<{ url: string; expiresAt: string }> {
  return api<{ url: string; expiresAt: string }>('/vm/desktop-token', { body: {} });
}
