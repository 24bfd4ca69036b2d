import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sql } from '../../core/db/pool.ts';
import { housekeeping } from '../../worker/jobs/housekeeping.ts';
import { createUser, uniqueEmail } from '../support/accounts.ts';
import { startTestStack } from '../support/stack.ts';

const stack = await startTestStack();
const db = stack.services.db;
const count = (table: string, where = sql.fragment`TRUE`) =>
  db.oneFirst(
    sql.type(
      z.object({ n: z.number() }),
    )`SELECT count(*)::int AS n FROM ${sql.identifier([table])} WHERE ${where}`,
  );

describe('housekeeping', () => {
  it('deletes dead rows, keeps live ones, and a second run deletes nothing', async () => {
    const user = await createUser(stack);
    const now = Date.now();
    await db.query(sql.unsafe`
      INSERT INTO rate_limits (key, points, expire) VALUES
        ('hk:dead', 3, ${now - 60_000}), ('hk:live', 1, ${now + 60_000}), ('hk:forever', 1, NULL)`);
    await db.query(sql.unsafe`
      INSERT INTO sessions (user_id, token_hash, expires_at, revoked_at) VALUES
        (${user.id}, 'hk-old-expired', now() - interval '40 days', NULL),
        (${user.id}, 'hk-old-revoked', now() + interval '5 days', now() - interval '31 days'),
        (${user.id}, 'hk-recently-revoked', now() + interval '5 days', now() - interval '1 day'),
        (${user.id}, 'hk-live', now() + interval '10 days', NULL)`);
    const stale = uniqueEmail('stale');
    const fresh = uniqueEmail('fresh');
    await db.query(sql.unsafe`
      INSERT INTO pending_registrations (email, requester_hash, name, phone, password_hash, created_at, updated_at) VALUES
        (${stale}, 'r1', 'Old', '9876543210', 'x', now() - interval '3 days', now() - interval '3 days'),
        (${fresh}, 'r1', 'New', '9876543210', 'x', now(), now())`);

    const handler = housekeeping({ db, log: stack.services.log });
    await handler([]);

    expect(await count('rate_limits', sql.fragment`key LIKE 'hk:%'`)).toBe(2);
    expect(await count('rate_limits', sql.fragment`key = 'hk:dead'`)).toBe(0);
    const sessions = await db.anyFirst(
      sql.type(
        z.object({ token_hash: z.string() }),
      )`SELECT token_hash FROM sessions WHERE token_hash LIKE 'hk-%' ORDER BY token_hash`,
    );
    expect(sessions).toEqual(['hk-live', 'hk-recently-revoked']);
    expect(await count('pending_registrations', sql.fragment`email = ${stale}`)).toBe(0);
    expect(await count('pending_registrations', sql.fragment`email = ${fresh}`)).toBe(1);

    await handler([]);
    expect(await count('rate_limits', sql.fragment`key LIKE 'hk:%'`)).toBe(2);
    expect(await count('sessions', sql.fragment`token_hash LIKE 'hk-%'`)).toBe(2);
  });
});
