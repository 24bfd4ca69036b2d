import { describe, expect, it } from 'vitest';
import { allStringsAcceptable } from './input.ts';

describe('allStringsAcceptable', () => {
  it('accepts ordinary text, emoji and nested values', () => {
    expect(allStringsAcceptable({ a: 'héllo 👋', b: [1, null, { c: 'ok' }] })).toBe(true);
  });

  it.each([
    ['a NUL byte', { a: 'x\u0000' }],
    ['a lone high surrogate', { a: '\uD800' }],
    ['a lone low surrogate deep down', { a: [{ b: ['x\uDFFF'] }] }],
    ['a bad key', { ['k\u0000']: 1 }],
  ])('refuses %s', (_what, value) => {
    expect(allStringsAcceptable(value)).toBe(false);
  });

  it('walks very deep nesting without overflowing the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(allStringsAcceptable(deep)).toBe(false);
  });
});
