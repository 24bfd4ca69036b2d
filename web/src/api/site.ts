import type { TimeToDesktopStat } from '../../../core/domain/content/timeToDesktop.ts';
import type { ProvisionDistribution } from '../../../core/domain/setupProgress.ts';
import { resource } from './resource.ts';

/**
 * `GET /api/site`: the public addresses, from the server's configuration, the
 * time-to-desktop figure measured from recorded provisions, and the endpoint the connection
 * check measures (with the AWS region it stands for).
 */
export type SiteInfo = {
  contactEmail: string;
  supportEmail: string;
  timeToDesktop: TimeToDesktopStat;
  /** The same recorded provisions by kind (warm-pool spare, fresh launch): the wait after paying. */
  setupTimes: ProvisionDistribution;
  connectionCheck: { pingUrl: string; region: string };
};

// Read by public pages (the landing page's figures), so kept without swr (web/src/api/resource.ts).
const site = resource<SiteInfo>('/site', { revalidateOnFocus: false });

export function useSite(): SiteInfo | undefined {
  return useSiteQuery().data;
}

/** The site's settings with the error, for a page that cannot work without them. */
export function useSiteQuery(): { data: SiteInfo | undefined; error: unknown; retry: () => void } {
  const { data, error } = site.use();
  return { data, error, retry: () => void site.revalidate() };
}
