import useSWR from 'swr';
import { swrFetcher } from './fetcher.ts';

/** `GET /api/site`: the public addresses, from the server's configuration. */
export type SiteInfo = { contactEmail: string; supportEmail: string };

export function useSite(): SiteInfo | undefined {
  const { data } = useSWR<SiteInfo>('/site', swrFetcher, {
    revalidateOnFocus: false,
    shouldRetryOnError: false,
  });
  return data;
}
