import { readFile } from 'node:fs/promises';
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
import { registeredUser, runningLegendMachine, waitForReadyToStream } from '../support/e2eUsers.ts';
import { NAME_MESSAGES, NAME_SINK_ADDRESS } from '../../core/domain/machineName.ts';

/**
 * The PC keeps its name, in a browser against `npm start`'s stack (whose sandbox plays Route 53):
 * the dashboard shows the same name before and after STOP/START while the sandbox's record moves
 * to the sink while stopped, then to the new address; the Remote Desktop and DCV files carry the
 * name; a paired Moonlight device stays paired across the restart and the card says what to open;
 * after Remove, the device and its message are gone. At 1280 px, then 360 px after the restart.
 */

const browser = useBrowser();
const NAME = /^pc-[0-9a-z]{8}\.play\.legendcloud\.test$/;

async function control(path: string, body: unknown): Promise<void> {
  const reply = await fetch(`${baseUrl()}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(reply.status).toBe(204);
}

/** What the sandbox's Route 53 holds for a name. */
async function recordOf(name: string): Promise<string[] | null> {
  const state = (await (await fetch(`${baseUrl()}/sandbox/route53/_state`)).json()) as {
    zones: Array<{ records: Array<{ name: string; values: string[] }> }>;
  };
  return state.zones.flatMap((z) => z.records).find((r) => r.name === `${name}.`)?.values ?? null;
}

async function download(page: Page, link: ReturnType<Page['locator']>): Promise<string> {
  const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
  return readFile((await file.path())!, 'utf8');
}

describe.skipIf(!hasBrowser())('the PC keeps its name', () => {
  it('same name before and after STOP/START, the record follows the address, the files carry the name, the pairing stays', async () => {
    const user = await registeredUser('Kabir Rao', 'name');
    const page = await browser.newPage(DESKTOP);
    await runningLegendMachine(page, user.email);
    const name = await page.locator('[data-field="pc-name"]').innerText();
    expect(name).toMatch(NAME);
    const firstIp = await page.locator('[data-field="public-ip"]').innerText();
    expect(await recordOf(name)).toEqual([firstIp]);

    // The Remote Desktop file and the DCV file name the PC, not its address.
    const rdp = await download(page, page.getByRole('link', { name: 'Download desktop file' }));
    expect(rdp).toContain(`full address:s:${name}\r\n`);
    await page.getByText(NAME_MESSAGES.rdpHintNamed).waitFor();
    const connect = page.getByRole('region', { name: 'How to connect' });
    // The card waits for the machine's first health report before it offers DCV's file and pairing.
    await waitForReadyToStream(page);
    await connect.getByRole('tab', { name: 'DCV app' }).click();
    const dcv = await download(page, connect.locator('[data-field="dcv-file"]'));
    expect(dcv).toContain(`host=${name}\r\nport=8443\r\n`);

    // Moonlight is told the name, and that it stays.
    await connect.getByRole('tab', { name: 'Moonlight (games)' }).click();
    await expect(connect.locator('[data-field="stream-host"]').innerText()).resolves.toBe(name);
    await connect.locator('[data-field="address-note"]').getByText(NAME_MESSAGES.keeps).waitFor();
    await control('/sandbox/sunshine/_control', { machines: { [firstIp]: { moonlight: { pin: '2468' } } } });
    await connect.getByLabel('PIN from Moonlight').fill('2468');
    await connect.getByLabel('Device name').fill('Bedroom TV');
    await connect.getByRole('button', { name: 'Pair device' }).click();
    await connect
      .getByText('Bedroom TV is paired. Open your PC in Moonlight to play.')
      .waitFor({ timeout: 45_000 });
    await screenshotsAtBothWidths(page, 'name-running');

    // STOP, then START: a new address, the same name, the record moved with it.
    await page.getByRole('button', { name: 'STOP VM' }).click();
    await page
      .getByRole('dialog', { name: 'Stop your cloud PC?' })
      .getByRole('button', { name: 'Stop VM' })
      .click();
    await page.getByRole('button', { name: 'START VM' }).waitFor({ timeout: 45_000 });
    // Stopped: the name leads nowhere anyone answers, not to the address EC2 took back.
    expect(await recordOf(name)).toEqual([NAME_SINK_ADDRESS]);
    // Stopped: the name stays on the card (there is no address to show).
    await expect(page.locator('[data-field="pc-name"]').innerText()).resolves.toBe(name);
    await screenshotsAtBothWidths(page, 'name-stopped');
    await page.setViewportSize(MOBILE);
    await page.getByRole('button', { name: 'START VM' }).click();
    await page.locator('[data-field="status"]', { hasText: /^Running$/ }).waitFor({ timeout: 45_000 });
    const secondIp = await page.locator('[data-field="public-ip"]').innerText();
    expect(secondIp).not.toBe(firstIp);
    await expect(page.locator('[data-field="pc-name"]').innerText()).resolves.toBe(name);
    expect(await recordOf(name)).toEqual([secondIp]);
    expect(await download(page, page.getByRole('link', { name: 'Download desktop file' }))).toContain(
      `full address:s:${name}\r\n`,
    );

    // The device is still paired, the card says what to open, and the old answer is gone.
    const device = connect.locator('.device-list li[data-device="Bedroom TV"]');
    await device.waitFor();
    await connect
      .locator('[data-field="paired-note"]')
      .getByText(`Your paired devices stay paired when your PC restarts: in Moonlight, open ${name}.`)
      .waitFor();
    await expect(connect.getByText('Bedroom TV is paired.').count()).resolves.toBe(0);
    await screenshotsAtBothWidths(page, 'name-restarted');

    // Remove: the device and its message are gone.
    await waitForReadyToStream(page);
    await device.getByRole('button', { name: 'Remove' }).click();
    await page
      .getByRole('dialog', { name: 'Remove Bedroom TV?' })
      .getByRole('button', { name: 'Remove device' })
      .click();
    await connect
      .getByText('Device removed. It can no longer stream from your PC.')
      .waitFor({ timeout: 30_000 });
    await device.waitFor({ state: 'detached' });
    await expect(connect.getByText(/Bedroom TV/).count()).resolves.toBe(0);
    await expect(connect.locator('[data-field="paired-note"]').count()).resolves.toBe(0);
    await screenshotsAtBothWidths(page, 'name-removed');
  }, 180_000);
});
