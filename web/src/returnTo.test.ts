import { describe, expect, it } from 'vitest';
import { loginPathFor, safeReturnPath } from './returnTo.ts';

describe('where sign-in returns to', () => {
  it.each(['/dashboard', '/select-vm?plan=legend', '/history#latest', '/BlogPostPage/3'])(
    'keeps a path on this site: %s',
    (path) => {
      expect(safeReturnPath(path)).toBe(path);
    },
  );

  it.each([
    null,
    '',
    'dashboard',
    '//evil.example/x',
    '/\\evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    '/\t/evil.example',
    '/login',
    '/register/otp?x=1',
    '/auth/google/callback',
  ])('refuses %j', (path) => {
    expect(safeReturnPath(path)).toBeNull();
  });

  it('builds the login address that comes back', () => {
    expect(loginPathFor('/dashboard')).toBe('/login?next=%2Fdashboard');
    expect(loginPathFor('//evil.example')).toBe('/login');
  });
});
