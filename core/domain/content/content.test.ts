import { describe, expect, it } from 'vitest';
import { BLOG_POSTS, findBlogPost } from './blog.ts';
import * as blog from './blog.ts';
import { rupeesShort } from './facts.ts';
import * as facts from './facts.ts';
import { FEATURES, HERO_TEXTS, HOW_TO_STEPS, TAGLINES, WHY_CARDS } from './landing.ts';
import * as landing from './landing.ts';
import { refundSchedule } from './legal.ts';
import { FAQ, USE_CASES, USE_CASE_IDS } from './services.ts';
import * as services from './services.ts';
import { PROVISIONING_TIME, TIME_TO_DESKTOP } from '../constants.ts';
import { CARD_PLANS, DURATIONS } from '../plans.ts';
import { TRIAL_LABEL } from '../trial.ts';

/** Every string the content modules export, however deeply nested. */
function allText(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(allText);
  if (value && typeof value === 'object') return Object.values(value).flatMap(allText);
  return [];
}
const everything = [facts, landing, services, blog].flatMap((module) =>
  allText(Object.fromEntries(Object.entries(module).filter(([, v]) => typeof v !== 'function'))),
);

describe('site content', () => {
  it('has the ten use cases of spec §3, in order, each complete', () => {
    expect(USE_CASES.map((useCase) => useCase.id)).toEqual([...USE_CASE_IDS]);
    expect(USE_CASE_IDS).toEqual([
      'development',
      'gaming',
      'editing',
      'ai',
      'data',
      'office',
      'student',
      'lab',
      'cyber',
      'game',
    ]);
    const cardPlans = CARD_PLANS.map((plan) => plan.id);
    for (const useCase of USE_CASES) {
      expect(useCase.title && useCase.shortTitle && useCase.description && useCase.powerNote).toBeTruthy();
      expect(cardPlans).toContain(useCase.recommendedPlan);
      expect(useCase.suggestedHours.length).toBeGreaterThan(0);
      for (const hours of useCase.suggestedHours) expect(DURATIONS).toContain(hours);
    }
    expect(USE_CASES.some((useCase) => useCase.highlight)).toBe(true);
  });

  it('has four featured posts with unique ids, findable by id, and nothing for an unknown id', () => {
    expect(BLOG_POSTS).toHaveLength(4);
    expect(new Set(BLOG_POSTS.map((post) => post.id)).size).toBe(4);
    for (const post of BLOG_POSTS) {
      expect(post.paragraphs.length).toBeGreaterThan(1);
      expect(findBlogPost(post.id)).toBe(post);
      expect(Number.isNaN(Date.parse(post.publishedOn))).toBe(false);
    }
    expect(findBlogPost('999')).toBeUndefined();
  });

  it('publishes no testimonials nobody wrote', () => {
    expect(Object.keys(blog)).not.toContain('TESTIMONIALS');
    expect(JSON.stringify(blog)).not.toMatch(/testimonial/i);
  });

  it('has the landing page sections the spec counts', () => {
    expect(WHY_CARDS).toHaveLength(6);
    expect(HOW_TO_STEPS).toHaveLength(6);
    expect(FEATURES.map((feature) => feature.title)).toEqual(['Gaming', 'Editing', 'Developing']);
    expect(HERO_TEXTS.length).toBeGreaterThan(1);
    expect(TAGLINES.length).toBeGreaterThan(1);
    expect(FAQ.length).toBeGreaterThan(1);
    for (const category of FAQ) expect(category.items.length).toBeGreaterThan(0);
  });

  it('offers a 1 hour trial everywhere, blog copy included, and never a 30-minute one', () => {
    expect(TRIAL_LABEL).toBe('1 hour');
    const text = everything.join('\n');
    expect(text).not.toMatch(/30[\s-]*min/i);
    expect(text).not.toMatch(/half[\s-]an[\s-]hour/i);
    const trialMentions = everything.filter((s) => /\btrial\b/i.test(s) && /\d/.test(s));
    expect(trialMentions.length).toBeGreaterThan(0);
    for (const mention of trialMentions) {
      if (/\d+[\s-]*(hour|minute|min)\b[^.]*trial|trial[^.]*\d+[\s-]*(hour|minute|min)\b/i.test(mention)) {
        expect(mention).toContain(`${TRIAL_LABEL} trial`);
      }
    }
    expect(BLOG_POSTS.some((post) => post.paragraphs.some((p) => p.includes(`${TRIAL_LABEL} trial`)))).toBe(
      true,
    );
  });

  it('states time to desktop and build time only through their constants', () => {
    const claims = everything.flatMap((s) => s.match(/\b\d+ (seconds?|minutes?)\b/g) ?? []);
    expect(claims.length).toBeGreaterThan(0);
    for (const claim of claims) {
      expect([TIME_TO_DESKTOP.label, PROVISIONING_TIME.label.replace(/^about /, '')]).toContain(claim);
    }
  });

  it('prints whole rupees without paise and keeps paise when there are some', () => {
    expect(rupeesShort(145_000)).toBe('₹1,450');
    expect(rupeesShort(145_050)).toBe('₹1,450.50');
  });
});

describe('refundSchedule', () => {
  it('prints the default policy with equal days merged and nothing from day 9', () => {
    expect(refundSchedule()).toEqual([
      { days: 'Days 1–2', percent: 70 },
      { days: 'Day 3', percent: 60 },
      { days: 'Day 4', percent: 50 },
      { days: 'Day 5', percent: 40 },
      { days: 'Day 6', percent: 30 },
      { days: 'Day 7', percent: 25 },
      { days: 'Day 8', percent: 20 },
      { days: 'Day 9 onwards', percent: 0 },
    ]);
  });

  it('follows a configured policy', () => {
    expect(refundSchedule({ percentByDay: [50, 50, 50], cancellationChargePaise: 0 })).toEqual([
      { days: 'Days 1–3', percent: 50 },
      { days: 'Day 4 onwards', percent: 0 },
    ]);
  });
});
