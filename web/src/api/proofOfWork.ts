import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/web/sha';
import { api, ApiError } from './fetcher.ts';

/**
 * Code requests for an email under attack must carry a solved puzzle (the server answers 428):
 * ALTCHA's proof of work, solved here in the browser with WebCrypto. The challenge comes from
 * our own server and the answer goes back only to it: no third party is involved.
 */

/** The puzzle asks for a SHA-256 whose first four hex digits are zero: about 65 000 tries. */
const EXPECTED_TRIES = 16 ** 4;

/** What the page shows while the puzzle is solved (a fraction of the expected work, never 100%). */
export function puzzleProgressText(fraction: number): string {
  return `Many codes were asked for this email just now, so your browser is solving a short puzzle first… ${Math.round(fraction * 100)}%`;
}

/**
 * POSTs `body` to `path`; when the server asks for a proof of work, solves one (reporting
 * progress from 0 to 0.99) and sends the request again with it.
 */
export async function postWithProof<T>(
  path: string,
  body: Record<string, unknown>,
  onProgress: (fraction: number) => void,
): Promise<T> {
  try {
    return await api<T>(path, { body });
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 428) throw error;
  }
  const challenge = await api<Challenge>('/auth/proof-of-work');
  let tries = 0;
  onProgress(0);
  const solution = await solveChallenge({
    challenge,
    deriveKey: async (...args: Parameters<typeof deriveKey>) => {
      tries++;
      if (tries % 500 === 0) onProgress(Math.min(0.99, tries / EXPECTED_TRIES));
      return deriveKey(...args);
    },
    timeout: 120_000,
  });
  if (!solution) throw new ApiError(0, 'The puzzle took too long to solve. Please try again.');
  const proof = btoa(JSON.stringify({ challenge, solution }))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  return api<T>(path, { body: { ...body, proof } });
}
