import { createServer } from 'node:http';
import { loadConfig } from '../../core/config/config.ts';
import { insertUser } from '../../core/db/users.ts';
import { createLogger } from '../../core/observability/log.ts';
import { hashPassword } from '../../core/crypto/passwords.ts';
import { createApp } from '../../api/app.ts';
import { openServices, type Services } from '../../api/services.ts';
import { startScratchDatabase } from '../lib/scratch.ts';
import { fmtMs, heading, median } from './lib.ts';

/**
 * Whether response times tell which emails have accounts: forgot-password, registration and
 * login, each timed for a registered and an unknown email, interleaved so drift hits both
 * alike. The ratio is the slower median over the faster (target ≤ 1.1). The rate limits and
 * the per-account failure counter do identical work on both paths and are switched off, so
 * refusals cannot hide the handlers' own work.
 */
export async function benchEnumeration(rounds = Number(process.env.BENCH_ROUNDS ?? 60)): Promise<void> {
  heading('Timing by email: registered vs unknown (real handlers, argon2, embedded Postgres)');
  const database = await startScratchDatabase('bench-enum-', 'bench');
  try {
    const url = database.url;
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url, LOG_LEVEL: 'silent' });
    const services = await openServices(config, url, createLogger({ level: 'silent', name: 'bench' }));
    const open = { consume: async () => {}, reset: async () => {} };
    for (const name of Object.keys(services.limiters) as Array<keyof Services['limiters']>) {
      if (name === 'loginAccountFailures') continue;
      (services.limiters as Record<string, unknown>)[name] = open;
    }
    services.limiters.loginAccountFailures = { add: async () => 0, peek: async () => 0 };
    const registered = 'registered-bench@example.com';
    const unknown = 'nobody-bench@example.com';
    await insertUser(services.db, {
      email: registered,
      name: 'Bench User',
      phone: '9876543210',
      passwordHash: await hashPassword('Str0ng!Passw0rd'),
      googleSub: null,
    });
    const server = createServer(createApp(services).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const base = `http://127.0.0.1:${address && typeof address === 'object' ? address.port : 0}`;
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: base },
        body: JSON.stringify(body),
      }).then((r) => r.arrayBuffer());

    // Forgot-password is milliseconds, so it gets more rounds than the argon2-bound two.
    const endpoints: Array<{ name: string; rounds: number; send: (email: string) => Promise<unknown> }> = [
      {
        name: 'POST /api/auth/forgot-password',
        rounds: rounds * 5,
        send: (email) => post('/api/auth/forgot-password', { email, method: 'otp' }),
      },
      {
        name: 'POST /api/auth/register',
        rounds,
        send: (email) =>
          post('/api/auth/register', { name: 'Bench', email, phone: '9876543210', password: 'N3w!Passw0rd' }),
      },
      {
        name: 'POST /api/auth/login (wrong password)',
        rounds,
        send: (email) => post('/api/auth/login', { email, password: 'Wr0ng!Passw0rd' }),
      },
    ];
    for (const endpoint of endpoints) {
      for (let i = 0; i < 5; i++) await endpoint.send(i % 2 ? registered : unknown); // warm-up
      const times = { registered: [] as number[], unknown: [] as number[] };
      for (let i = 0; i < endpoint.rounds; i++) {
        // Alternate which goes first, so neither always follows the other.
        const order = i % 2 ? (['registered', 'unknown'] as const) : (['unknown', 'registered'] as const);
        for (const which of order) {
          const started = performance.now();
          await endpoint.send(which === 'registered' ? registered : unknown);
          times[which].push(performance.now() - started);
        }
      }
      const r = median(times.registered);
      const u = median(times.unknown);
      console.log(
        `${endpoint.name.padEnd(38)} registered ${fmtMs(r).padStart(8)}  unknown ${fmtMs(u).padStart(8)}  ratio ${(Math.max(r, u) / Math.min(r, u)).toFixed(2)} (n=${endpoint.rounds} each; target ≤ 1.10)`,
      );
    }
    server.closeAllConnections();
    server.close();
    await services.close();
  } finally {
    await database.stop();
  }
}
