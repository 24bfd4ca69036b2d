import type { DeletionFacts } from '../../core/commands/accountDeletion.ts';
import type { Db } from '../../core/db/pool.ts';
import { machinesSentence, type DeletionPreview } from '../../core/domain/accountDeletion.ts';
import { formatHoursMinutes } from '../../core/domain/usageBuckets.ts';
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

export type DeletionPreviewBody = DeletionPreview;

export function deletionPreviewBody(facts: DeletionFacts): DeletionPreviewBody {
  return {
    machine: machinesSentence(facts.machines),
    hasMachine: facts.machines.length > 0,
    plan: facts.plan && {
      name: facts.plan.name,
      hoursLeft: formatHoursMinutes(facts.plan.secondsLeft / 3600),
      expiresAt: facts.plan.expiresAt?.toISOString() ?? null,
    },
    invoices: facts.invoices,
    trialPhoneKept: facts.trialPhoneKept,
  };
}
