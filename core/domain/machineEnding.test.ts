import { describe, expect, it } from 'vitest';
import { endingNotice, isEndingNotice, keptCopyOf, type CopyFacts } from './machineEnding.ts';

const done = new Date('2026-05-01T10:00:00Z');
const copy = (overrides: Partial<CopyFacts>): CopyFacts => ({
  state: 'completed',
  completedAt: done,
  restoredVmId: null,
  ...overrides,
});

describe('keptCopyOf: a copy that once completed is safe for good', () => {
  it.each([
    ['no copy', [], 'none'],
    ['one being taken', [copy({ state: 'creating', completedAt: null })], 'creating'],
    [
      'a failed one and its retake being taken',
      [copy({ state: 'failed', completedAt: null }), copy({ state: 'creating', completedAt: null })],
      'creating',
    ],
    ['only a failed one', [copy({ state: 'failed', completedAt: null })], 'none'],
    ['kept', [copy({})], 'kept'],
    ['kept, then deleted at the end of its window', [copy({ state: 'deleted' })], 'kept'],
    ['restored into a renewal', [copy({ state: 'restored', restoredVmId: 'vm-2' })], 'restored'],
    ['restored, then deleted by the sweep', [copy({ state: 'deleted', restoredVmId: 'vm-2' })], 'restored'],
  ] as const)('%s → %s', (_name, copies, kept) => {
    expect(keptCopyOf(copies)).toBe(kept);
  });
});

describe('endingNotice: one mail, true when read', () => {
  it.each([
    ['plan ended, copy kept, nothing renewed', 'plan-ended', 'kept', false, 'disk-kept'],
    [
      'plan ended, copy kept, renewed since (its words drop "not renewed")',
      'plan-ended',
      'kept',
      true,
      'disk-kept',
    ],
    ['plan ended, copy restored into the renewal', 'plan-ended', 'restored', true, 'disk-restored'],
    ['plan ended, no copy kept, nothing renewed', 'plan-ended', 'none', false, 'vm-terminated'],
    ['plan ended, no copy, renewed since', 'plan-ended', 'none', true, null],
    ['account deleted', 'account-deleted', 'none', false, null],
    ['retired by an operator', 'reprovisioned', 'none', false, null],
    ['lost and replaced (told when replaced)', 'replaced', 'kept', false, null],
  ] as const)('%s', (_name, reason, copy, renewed, notice) => {
    expect(endingNotice({ reason, copy, renewed })).toBe(notice);
  });

  it('knows which notices are endings', () => {
    expect(['vm-terminated', 'disk-kept', 'disk-restored', 'vm-replaced'].every(isEndingNotice)).toBe(true);
    expect(isEndingNotice('disk-deleted')).toBe(false);
  });
});
