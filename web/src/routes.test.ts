import { expect, it } from 'vitest';
import { SITE_ROUTES } from '../../core/domain/siteRoutes.ts';
import { ROUTES } from './routes.tsx';

it('routes exactly the pages the server answers 200 for (core/domain/siteRoutes.ts)', () => {
  expect(ROUTES.map((r) => r.path).sort()).toEqual(SITE_ROUTES.map((r) => r.path).sort());
});
