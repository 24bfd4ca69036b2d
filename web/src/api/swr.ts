import useSWR, { type Key, type SWRConfiguration, type SWRResponse } from 'swr';
import { swrFetcher } from './fetcher.ts';
import { isSessionEnded } from './sessionEnded.ts';

/**
 * swr as every page's data hooks use it: the key is the API path, fetched by our fetcher, and
 * nothing is asked while the session has ended (a signed-in page then says so and stops polling).
 * What an app-wide SWRConfig would say, said here instead, so the frame of every page (and a
 * visitor's first page) does not load swr. ESLint sends every use of useSWR through here.
 */
export function useApi<T>(key: Key, options: SWRConfiguration<T> = {}): SWRResponse<T> {
  return useSWR<T>(key, swrFetcher, { isPaused: isSessionEnded, ...options });
}
