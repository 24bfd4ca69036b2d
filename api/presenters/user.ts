import type { Db } from '../../core/db/pool.ts';
import { userHasPlan } from '../../core/db/users.ts';
import type { AuthUser } from '../context.ts';

/** What the session check and every login answer (spec §7 `GET /auth/login`; `hasPlan` drives the nav). */
export type SessionBody = { email: string; name: string; phone: string | null; hasPlan: boolean };

export async function sessionBody(
  db: Db,
  user: Pick<AuthUser, 'id' | 'email' | 'name' | 'phone'>,
): Promise<SessionBody> {
  return { email: user.email, name: user.name, phone: user.phone, hasPlan: await userHasPlan(db, user.id) };
}

/** The profile of spec §3: name, email (read-only), phone. */
export type ProfileBody = { name: string; email: string; phone: string | null };

export function profileBody(user: { name: string; email: string; phone: string | null }): ProfileBody {
  return { name: user.name, email: user.email, phone: user.phone };
}
