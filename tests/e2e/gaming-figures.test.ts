import { describe, expect, it } from 'vitest';
import { baseUrl, hasBrowser } from '../support/browser.ts';
import { GAMING, STREAM_MODES } from '../../core/domain/gaming.ts';
import { THRESHOLDS } from '../../core/domain/connectionCheck.ts';
import { CARD_PLANS } from '../../core/domain/plans.ts';

/**
 * One source for the gaming figures (core/domain/gaming.ts): every public page that quotes them,
 * as the server sends it (rendered at build, as a visitor and a search engine get it), quotes
 * only figures that source gives, and they agree: the top frame rate, the qualities' speeds,
 * and the plan for games.
 */

const PAGES = [
  '/',
  '/services',
  '/select-vm',
  '/BlogPostPage/1',
  '/BlogPostPage/3',
  '/connection-check',
  '/guides',
];

/** The page's words, without markup. */
async function pageText(path: string): Promise<string> {
  const response = await fetch(`${baseUrl()}${path}`, { headers: { accept: 'text/html' } });
  expect(response.status, path).toBe(200);
  return (await response.text())
    .replace(/<script[\s\S]*?<\/script>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

const FPS = new Set<number>(GAMING.fpsFigures);
const MBPS = new Set<number>([
  ...STREAM_MODES.map((m) => m.mbps),
  ...Object.values(THRESHOLDS).flatMap((t) => [t.great.mbps, t.ok.mbps]),
]);

describe.skipIf(!hasBrowser())('the gaming figures agree on every page that quotes them', () => {
  it.each(PAGES)('%s', async (path) => {
    const text = await pageText(path);
    const fps = [...text.matchAll(/(\d+)\s*fps\b/gi)].map((m) => Number(m[1]));
    const mbps = [...text.matchAll(/(\d+)\s*Mbps\b/g)].map((m) => Number(m[1]));
    // The page quotes some (a page that quotes none has no place in this list).
    expect(fps.length + mbps.length, `${path} quotes no gaming figure`).toBeGreaterThan(0);
    for (const figure of fps) expect(FPS.has(figure), `${path}: ${figure} fps`).toBe(true);
    for (const figure of mbps) expect(MBPS.has(figure), `${path}: ${figure} Mbps`).toBe(true);
    for (const [, figure] of text.matchAll(/up to (\d+) fps/gi))
      expect(Number(figure), path).toBe(GAMING.maxFps);
    // Wherever a plan is named for games, it is the same plan.
    for (const match of text.matchAll(
      /(?:plan for demanding games|Best for gaming|the plan for games)[^.]{0,80}/gi,
    )) {
      const named = CARD_PLANS.filter(
        (plan) => match[0].includes(plan.name) || match[0].includes(plan.displayName),
      );
      if (named.length > 0)
        expect(
          named.map((p) => p.id),
          `${path}: ${match[0]}`,
        ).toContain(GAMING.planId);
    }
  });

  it('the plan for games is the same on the landing page, the services page and its FAQ, and the plans page', async () => {
    const landing = await pageText('/');
    expect(landing).toMatch(new RegExp(`Gaming .{0,400}Best on ${GAMING.planName}`));
    const services = await pageText('/services');
    expect(services).toContain(
      `${GAMING.planName} has the stronger A10G GPU: it is the plan for demanding games`,
    );
    const plans = await (await fetch(`${baseUrl()}/select-vm`, { headers: { accept: 'text/html' } })).text();
    const gamingCard = /<article[^>]*pricing-([a-z-]+)[^>]*>(?:(?!<\/article>)[\s\S])*data-gaming-plan/.exec(
      plans,
    );
    expect(gamingCard?.[1]).toBe(GAMING.planId);
    expect(plans.match(/data-gaming-plan/g)).toHaveLength(1);
  });
});
