import Router from '@koa/router';
import { describe, expect, it } from 'vitest';
import { apiRouter } from './app.ts';
import type { AppState } from './context.ts';
import { routeMatcher } from './routePath.ts';

/** Whether the app's own /api router (built as the app builds it) routes a POST at `path` to `/api/dcv/auth`. */
function appRoutes(path: string): boolean {
  const group = new Router<AppState>();
  group.post('/dcv/auth', () => undefined);
  return apiRouter([group]).match(path, 'POST').route;
}

describe('routeMatcher', () => {
  it.each([
    '/api/dcv/auth',
    '/api/dcv/auth/',
    '/api/dcv/auth//',
    '/API/dcv/auth',
    '/api/dcv/Auth',
    '/api/dcv/auth/x',
    '//api/dcv/auth',
    '/api/dcv/authx',
  ])('agrees with the app router on %s', (path) => {
    expect(routeMatcher('/api/dcv/auth')(path)).toBe(appRoutes(path));
  });

  it('matches the trailing-slash spelling the router answers, and not another case', () => {
    const matches = routeMatcher('/api/machine/health');
    expect(matches('/api/machine/health/')).toBe(true);
    expect(matches('/api/Machine/health')).toBe(false);
  });
});
