import { Suspense, lazy } from 'react';
import { Route, Switch } from 'wouter';
import { Layout } from './components/Layout.tsx';
import { RouteAfterFrame, TakenOver } from './hydration.ts';
import { ROUTES } from './routes.tsx';

const NotFound = lazy(() => import('./pages/NotFound.tsx'));

export function App() {
  return (
    // Once the session has ended, nothing polls or revalidates (the session check excepted):
    // every data hook says so itself (web/src/api/swr.ts), so no page's frame loads swr.
    <Layout>
      <Suspense fallback={<p className="container page loading">Loading…</p>}>
        <RouteAfterFrame>
          <Switch>
            {ROUTES.map(({ path, component: Component, comingSoon }) => (
              <Route key={path} path={path}>
                {comingSoon ? <Component feature={comingSoon} /> : <Component />}
              </Route>
            ))}
            <Route>
              <NotFound />
            </Route>
          </Switch>
          <TakenOver />
        </RouteAfterFrame>
      </Suspense>
    </Layout>
  );
}
