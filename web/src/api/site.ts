import useSWR from 'swr';
import type { TimeToDesktopStat } from '../../../core/domain/content/timeToDesktop.ts';
import { swrFetcher } from './fetcher.ts';

/**
 * `GET /api/site`: the public addresses, from the server's configuration, and the
 * time-to-desktop figure measured from recorded provisions.
 */
export type SiteInfo = { contactEmail: string; supportEmail: string; timeToDesktop: TimeToDesktopStat };

export function useSite(): SiteInfo | undefined {
  const { data } = useSWR<SiteInfo>('/site', swrFetcher, {
    revalidateOnFocus: false,
    shouldRetryOnError: false,
  });
  return data;
}
