import { z } from 'zod';
import { INBOX_BURST, INBOX_INTERVAL_SECONDS, UNDER_ATTACK_SECONDS } from '../domain/codeLimits.ts';
import { sql, type Db } from './pool.ts';

/**
 * One inbox's code-mail budget (core/domain/codeLimits.ts): a generic cell rate whose
 * theoretical arrival time is checked and moved on in one statement, so parallel requests
 * cannot overspend it.
 */

const Row = z.object({ tat: z.date() });

/** Spends one mail of the inbox's budget: `allowed` false (and nothing spent) when it is used up. */
export async function spendInboxMail(db: Db, email: string): Promise<{ allowed: boolean; tat: Date }> {
  const interval = sql.fragment`make_interval(secs => ${INBOX_INTERVAL_SECONDS})`;
  const spent = await db.maybeOne(sql.type(Row)`
    INSERT INTO code_mail_budgets (email, tat) VALUES (${email}, now() + ${interval})
    ON CONFLICT (email) DO UPDATE SET tat = greatest(code_mail_budgets.tat, now()) + ${interval}
    WHERE greatest(code_mail_budgets.tat, now()) + ${interval} <= now() + ${INBOX_BURST} * ${interval}
    RETURNING tat`);
  if (spent) return { allowed: true, tat: spent.tat };
  const refused = await db.one(sql.type(Row)`SELECT tat FROM code_mail_budgets WHERE email = ${email}`);
  return { allowed: false, tat: refused.tat };
}

/** Strangers met the inbox's budget: new browsers must prove work for a while. */
export async function markUnderAttack(db: Db, email: string): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE code_mail_budgets SET attacked_until = now() + make_interval(secs => ${UNDER_ATTACK_SECONDS})
    WHERE email = ${email}`);
}

export async function isUnderAttack(db: Db, email: string): Promise<boolean> {
  const row = await db.maybeOne(sql.type(z.object({ attacked: z.boolean() }))`
    SELECT coalesce(attacked_until > now(), false) AS attacked FROM code_mail_budgets WHERE email = ${email}`);
  return row?.attacked ?? false;
}
