import Koa from 'koa';
import Router from '@koa/router';
import pg from 'pg';
import { listenOnLoopback } from './listen.ts';

/**
 * A baseline for the poll benchmark, in a process of its own so that its CPU time is its own
 * and nothing of the app's (logger, pools, timers) runs beside it:
 *
 * - `bare`: Koa and one route answering a constant;
 * - `one-query`: Koa and one route doing one parameterized unique-key read on the app's
 *   Postgres (a user by email, `users.email` is UNIQUE), through a `pg` pool the size of the
 *   app's, answering the row as JSON.
 *
 * Forked by scripts/bench/poll.ts (`pollBaseline.ts bare|one-query`, DATABASE_URL for the
 * second); sends `{ port }` over IPC once it listens. SIGTERM ends it.
 */

const mode = process.argv[2];
const app = new Koa();
const router = new Router();
let pool: pg.Pool | undefined;
if (mode === 'bare') {
  router.get('/hello', (ctx) => {
    ctx.body = { ok: true };
  });
} else if (mode === 'one-query') {
  if (!process.env.DATABASE_URL) throw new Error('pollBaseline one-query needs DATABASE_URL');
  // The app's slonik pool holds 10 connections: the same, so the baseline is neither starved nor favoured.
  const queries = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  pool = queries;
  router.get('/user/:email', async (ctx) => {
    const result = await queries.query('SELECT id, email, name FROM users WHERE email = $1', [
      ctx.params.email,
    ]);
    ctx.body = result.rows[0] ?? null;
  });
} else {
  throw new Error(`pollBaseline: unknown mode ${mode}; bare or one-query`);
}
app.use(router.routes());
const server = await listenOnLoopback(app.callback());
process.send!({ port: server.port });

process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void (pool?.end() ?? Promise.resolve()).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('pollBaseline: shutting down failed', error);
      process.exit(1);
    },
  );
});
