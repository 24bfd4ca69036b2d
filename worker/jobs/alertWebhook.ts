import type { WorkerDeps } from '../deps.ts';
import { eachJob } from '../job.ts';

/**
 * `alert-webhook`: posts one alert to ALERT_WEBHOOK_URL as Slack-compatible JSON. Anything but
 * a 2xx throws, so pg-boss retries with backoff and, in the end, dead-letters it (which the
 * metrics and `npm run jobs -- dead` show). The URL holds the webhook's secret: never logged.
 */
export function alertWebhook(deps: WorkerDeps) {
  return eachJob('alert-webhook', async ({ alertId, text }) => {
    const url = deps.config.ops.alertWebhookUrl;
    if (!url) {
      deps.log.warn({ alertId }, 'ALERT_WEBHOOK_URL is no longer set: alert not posted');
      return;
    }
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new Error(`alert webhook answered ${response.status}`);
    await response.body?.cancel();
    deps.log.info({ alertId }, 'alert posted to webhook');
  });
}
