import { mkdir, readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  baseUrl,
  DESKTOP,
  hasBrowser,
  MOBILE,
  screenshotsAtBothWidths,
  useBrowser,
  type Page,
} from '../support/browser.ts';
import { problemGuideHref } from '../../core/domain/machineHealth.ts';
import { requestFrom } from '../support/accounts.ts';
import { waitFor } from '../support/waitFor.ts';
import { registeredUser, runningLegendMachine, waitForReadyToStream } from '../support/e2eUsers.ts';

/**
 * Gamers can play, in a browser against `npm start`'s stack: the machine card's health line from
 * the sandbox machine's own signed report; the "How to connect" card pairs a Moonlight device
 * (the sandbox Sunshine on the machine's address receives the PIN and the name), lists and
 * removes it, and says what to do when a PIN is refused; the DCV file downloads with a token the
 * authenticator accepts once. Pictures of these screens are kept for the in-app guides
 * (screenshots/guides; `node scripts/guides.ts` copies them into web/public/guides).
 */

const browser = useBrowser();

async function sunshine(machines: Record<string, unknown>): Promise<void> {
  const reply = await fetch(`${baseUrl()}/sandbox/sunshine/_control`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ machines }),
  });
  expect(reply.status).toBe(204);
}

async function sunshineHost(ip: string) {
  const reply = await fetch(`${baseUrl()}/sandbox/sunshine/_state`);
  const body = (await reply.json()) as {
    hosts: Record<
      string,
      { pins: Array<{ pin: string; name: string }>; clients: unknown[]; reports: Array<{ status: number }> }
    >;
  };
  return body.hosts[ip];
}

/**
 * A picture of one part of our screen, for the guides. The sandbox machine's loopback address is
 * shown as a public one would be (a documentation example), then put back.
 */
async function guidePicture(
  page: Page,
  part: ReturnType<Page['locator']>,
  name: string,
  ip: string,
  pcName?: string,
): Promise<void> {
  await mkdir('screenshots/guides', { recursive: true });
  // Taken on a narrow screen, so the guide shows them at their own size, readable.
  const before = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize(GUIDE_VIEWPORT);
  await page.waitForFunction((width) => window.innerWidth === width, GUIDE_VIEWPORT.width);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await part.scrollIntoViewIfNeeded();
  // `whole`: only text nodes that are exactly `from` (a label of a name that wraps at its dots).
  const swap = (from: string, to: string, whole = false) =>
    page.evaluate(
      ([a, b, exact]) => {
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (exact ? node.nodeValue === a : node.nodeValue?.includes(a))
            node.nodeValue = (node.nodeValue ?? '').replaceAll(a, b);
        }
      },
      [from, to, whole] as const,
    );
  // The name as one text, and as the labels a name that wraps at its dots is written in.
  const pairs: Array<[string, string, boolean]> = [[ip, EXAMPLE_IP, false]];
  if (pcName) {
    pairs.push([pcName, EXAMPLE_NAME, false]);
    const [label = '', ...domain] = pcName.split('.');
    const [exampleLabel = '', ...exampleDomain] = EXAMPLE_NAME.split('.');
    pairs.push([label, exampleLabel, true], [`.${domain.at(-1)}`, `.${exampleDomain.at(-1)}`, true]);
  }
  for (const [from, to, whole] of pairs) await swap(from, to, whole);
  try {
    await part.screenshot({ path: `screenshots/guides/${name}.png`, animations: 'disabled' });
  } finally {
    for (const [from, to, whole] of pairs.reverse()) await swap(to, from, whole);
    await page.setViewportSize(before);
  }
}

const GUIDE_VIEWPORT = { width: 480, height: 900 };

/** What the guides show for a PC's address (RFC 5737 leaves 203.0.113.0/24 for examples). */
const EXAMPLE_IP = '203.0.113.24';
/** And for its name (the example domain a reader recognises as one). */
const EXAMPLE_NAME = 'pc-7k2m9q4x.play.legendcloud.in';

describe.skipIf(!hasBrowser())('playing on the cloud PC', () => {
  // Two machine reports waited for besides the pairing: more than the default minute on a loaded machine.
  it('health line, pairing a Moonlight device (and a refused PIN), removing it, and the DCV file, at 1280 and 360 px', async () => {
    const user = await registeredUser('Aarav Shah', 'gamer');
    // The refused PIN is a 422 the page shows, not a fault.
    const page = await browser.newPage(DESKTOP, { allowConsoleErrors: /status of 422/ });
    await runningLegendMachine(page, user.email);
    const ip = await page.locator('[data-field="public-ip"]').innerText();
    // npm start's sandbox plays Route 53: the PC has a name, which is what Moonlight is told to add.
    const pcName = await page.locator('[data-field="pc-name"]').innerText();
    expect(pcName).toMatch(/^pc-[0-9a-z]{8}\.play\.legendcloud\.test$/);

    // The machine's own report, on its card.
    const health = page.locator('[data-field="health"]');
    await waitForReadyToStream(page, 'Ready for 1440p 120 fps streaming');
    await health.getByText(/What your PC reported/).click();
    await expect(health.getByText('NVIDIA T4').isVisible()).resolves.toBe(true);
    // What the image proves about itself: the display streamed, sound, controllers.
    await health.getByText('Virtual display').waitFor();
    await health.getByText('Steam Streaming Speakers').waitFor();
    await health.getByText('Ready (as Xbox controllers)').waitFor();
    // Each line that explains a failure links to what to check (the guides), and is linked back.
    for (const [field, failure] of [
      ['health-display', 'black-screen'],
      ['health-stream-host', 'pairing-refused'],
      ['health-driver', 'stutter-or-high-latency'],
      ['health-address', 'pc-not-found'],
      ['health-audio', 'no-sound'],
      ['health-gamepad', 'controller-not-detected'],
    ] as const)
      await expect(health.locator(`#${field} a.health-guide`).getAttribute('href')).resolves.toBe(
        `/guides#${failure}`,
      );
    await guidePicture(page, health, 'health-1', ip, pcName);
    await guidePicture(page, page.locator('.vm-card'), 'browser-1', ip, pcName);
    await screenshotsAtBothWidths(page, 'dashboard-health');

    // The machine's clock runs five minutes fast: its reports are refused, and its card says why
    // (at the next poll; the page is reloaded rather than waiting the minute a running PC's takes).
    const sent = (await sunshineHost(ip))?.reports.length ?? 0;
    await sunshine({ [ip]: { clockAheadSeconds: 300 } });
    await waitFor('a report refused for its clock', async () =>
      (await sunshineHost(ip))?.reports.slice(sent).some((r) => r.status === 401),
    );
    await page.reload();
    await health.getByText('Your PC’s clock is 5 minutes fast, so it cannot report its health.').waitFor();
    await expect(health.getByText(/Sync now/).isVisible()).resolves.toBe(true);
    await screenshotsAtBothWidths(page, 'dashboard-health-clock-fast');
    const whileFast = (await sunshineHost(ip))?.reports.length ?? 0;
    await sunshine({ [ip]: { clockAheadSeconds: 0 } });
    await waitFor('a report accepted again', async () =>
      (await sunshineHost(ip))?.reports.slice(whileFast).some((r) => r.status === 200),
    );
    await page.reload();
    await health.getByText('Ready for 1440p 120 fps streaming').waitFor();

    // A running machine's card is polled once a minute: load it again to see the next report.
    const headlineAfterReload = async () => {
      await page.reload();
      const headline = health.locator('.health-headline');
      await headline.waitFor();
      return headline.innerText();
    };
    // The PC reports no sound: the line says so, what to do, and opens the guide's section.
    await sunshine({ [ip]: { health: { audio: false } } });
    const silent = 'Games will be silent in Moonlight: your PC has no sound device.';
    await expect.poll(headlineAfterReload, { timeout: 45_000, interval: 1_000 }).toBe(silent);
    const guide = health.getByRole('link', { name: 'What to do, step by step' });
    await expect(guide.getAttribute('href')).resolves.toBe(problemGuideHref('no-audio'));
    await health.getByText(/What your PC reported/).click();
    await health.getByText('No sound device', { exact: true }).waitFor();
    await screenshotsAtBothWidths(page, 'dashboard-health-no-sound');
    await sunshine({ [ip]: { health: { audio: true } } });
    await expect
      .poll(headlineAfterReload, { timeout: 45_000, interval: 1_000 })
      .toBe('Ready for 1440p 120 fps streaming');

    // Moonlight: the address to add, the PIN it shows, the device paired.
    const connect = page.getByRole('region', { name: 'How to connect' });
    await connect.scrollIntoViewIfNeeded();
    await expect(connect.locator('[data-field="stream-host"]').innerText()).resolves.toBe(pcName);
    await guidePicture(page, connect.locator('.connect-block').nth(0), 'moonlight-1', ip, pcName);
    await guidePicture(page, connect.locator('.connect-block').nth(1), 'moonlight-2', ip, pcName);
    // Moonlight on the customer's TV shows 0417 and waits.
    await sunshine({ [ip]: { moonlight: { pin: '0417' } } });
    await connect.getByLabel('PIN from Moonlight').fill('0417');
    await connect.getByLabel('Device name').fill('Living room TV');
    await guidePicture(page, connect.locator('.pair-form'), 'moonlight-3', ip, pcName);
    await connect.getByRole('button', { name: 'Pair device' }).click();
    await connect
      .getByText('Living room TV is paired. Open your PC in Moonlight to play.')
      .waitFor({ timeout: 45_000 });
    const paired = connect.locator('.device-list li[data-device="Living room TV"]');
    await paired.waitFor();
    const host = await sunshineHost(ip);
    expect(host?.pins).toEqual([expect.objectContaining({ pin: '0417', name: 'Living room TV' })]);
    expect(host?.clients).toHaveLength(1);
    await guidePicture(page, connect.locator('.paired-devices'), 'moonlight-4', ip, pcName);
    await screenshotsAtBothWidths(page, 'dashboard-moonlight-paired');

    // A PIN nobody waits for: the answer says how to start again, with the address.
    await sunshine({ [ip]: { moonlight: 'none' } });
    await connect.getByLabel('PIN from Moonlight').fill('1234');
    await connect.getByLabel('Device name').fill('Phone');
    await connect.getByRole('button', { name: 'Pair device' }).click();
    const refused = connect.getByRole('alert');
    await refused.waitFor({ timeout: 45_000 });
    await expect(refused.innerText()).resolves.toBe(
      `Your PC is not waiting for a PIN. Open Moonlight, add host ${pcName}, then type the PIN it shows within 2 minutes.`,
    );
    await screenshotsAtBothWidths(page, 'dashboard-moonlight-refused');

    // Removing the paired device unpairs it on the machine.
    await paired.getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: 'Remove Living room TV?' })
      .getByRole('button', { name: 'Remove device' })
      .click();
    await connect
      .getByText('Device removed. It can no longer stream from your PC.')
      .waitFor({ timeout: 30_000 });
    await paired.waitFor({ state: 'detached' });
    expect((await sunshineHost(ip))?.clients).toEqual([]);

    // The DCV app: the file carries a one-time token DCV's authenticator accepts once.
    await connect.getByRole('tab', { name: 'DCV app' }).click();
    const dcv = connect.locator('[data-field="dcv-file"]');
    await dcv.waitFor();
    await guidePicture(page, connect.locator('.tabpanel:not([hidden]) .connect-row'), 'dcv-1', ip, pcName);
    await guidePicture(page, page.locator('.vm-card [data-field="health"]'), 'dcv-2', ip, pcName);
    const [download] = await Promise.all([page.waitForEvent('download'), dcv.click()]);
    expect(download.suggestedFilename()).toBe('LegendCloud-PC.dcv');
    const file = await readFile(await download.path(), 'utf8');
    expect(file).toContain(`host=${pcName}\r\nport=8443\r\nsessionid=console\r\n`);
    const token = /authtoken=([\w-]+)/.exec(file)?.[1] ?? '';
    const verify = () =>
      requestFrom(ip, `${baseUrl().replace('localhost', '127.0.0.1')}/api/dcv/auth`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          sessionId: 'console',
          authenticationToken: token,
          clientAddress: '198.51.100.20',
        }).toString(),
      });
    expect((await verify()).text).toContain('result="yes"');
    expect((await verify()).text).toContain('result="no"');
    await screenshotsAtBothWidths(page, 'dashboard-dcv');

    // The browser desktop and Remote Desktop options, each with its guide.
    await connect.getByRole('tab', { name: 'Browser' }).click();
    await guidePicture(
      page,
      connect.locator('.tabpanel:not([hidden]) .connect-row'),
      'browser-2',
      ip,
      pcName,
    );
    await connect.getByRole('tab', { name: 'Remote Desktop' }).click();
    await guidePicture(page, connect.locator('.tabpanel:not([hidden]) .connect-row'), 'rdp-1', ip, pcName);
    await connect.locator('.tabpanel:not([hidden]) .guide summary').click();
    await screenshotsAtBothWidths(page, 'dashboard-rdp-guide');

    // Back on Moonlight at 360 px: the guide opens with its pictures.
    await page.setViewportSize(MOBILE);
    await connect.getByRole('tab', { name: 'Moonlight (games)' }).click();
    await connect.locator('.tabpanel:not([hidden]) .guide summary').click();
    const pictures = connect.locator('.tabpanel:not([hidden]) .guide-image');
    await expect(pictures.count()).resolves.toBe(4);
    // Every guide's pictures are there (web/public/guides), loaded and not broken.
    await page.waitForFunction(() =>
      [...document.querySelectorAll<HTMLImageElement>('.tabpanel:not([hidden]) .guide-image')].every(
        (img) => img.complete && img.naturalWidth > 0,
      ),
    );
    const sources = await page
      .locator('.guide-image')
      .evaluateAll((imgs) => imgs.map((img) => (img as HTMLImageElement).src));
    for (const source of sources) expect((await fetch(source)).status, source).toBe(200);
    await screenshotsAtBothWidths(page, 'dashboard-moonlight-guide');
  }, 150_000);
});
