import { z } from 'zod';
import { SUBSCRIBER_STATES } from '../domain/publicSite.ts';
import { sql, type Db } from './pool.ts';

/** Blog subscribers: double opt-in (see sql/0003_public_site.sql). */

export const BlogSubscriber = z.object({
  id: z.uuid(),
  email: z.string(),
  state: z.enum(SUBSCRIBER_STATES),
  confirm_token_hash: z.string().nullable(),
  confirm_token_expires_at: z.date().nullable(),
  last_mailed_at: z.date().nullable(),
  created_at: z.date(),
  confirmed_at: z.date().nullable(),
  unsubscribed_at: z.date().nullable(),
});
export type BlogSubscriber = z.infer<typeof BlogSubscriber>;

const COLUMNS = sql.fragment`id, email, state, confirm_token_hash, confirm_token_expires_at, last_mailed_at,
  created_at, confirmed_at, unsubscribed_at`;

/**
 * The subscriber row of `email` (created as pending when new), locked for the rest of the
 * transaction so two submits of one address cannot both mail it. `recentlyMailed` says
 * whether the form already sent this address a mail within `remailAfterMinutes`.
 */
export async function lockSubscriberForSubscribe(
  db: Db,
  email: string,
  remailAfterMinutes: number,
): Promise<{ subscriber: BlogSubscriber; recentlyMailed: boolean }> {
  await db.query(
    sql.unsafe`INSERT INTO blog_subscribers (email) VALUES (${email}) ON CONFLICT (email) DO NOTHING`,
  );
  const row = await db.one(sql.type(BlogSubscriber.extend({ recently_mailed: z.boolean() }))`
    SELECT ${COLUMNS},
      coalesce(last_mailed_at > now() - make_interval(mins => ${remailAfterMinutes}), false) AS recently_mailed
    FROM blog_subscribers WHERE email = ${email} FOR UPDATE`);
  const { recently_mailed: recentlyMailed, ...subscriber } = row;
  return { subscriber, recentlyMailed };
}

/** (Re)starts the opt-in: pending, a fresh confirm token hash (old links stop working), mailed now. */
export async function startConfirmation(
  db: Db,
  id: string,
  tokenHash: string,
  validDays: number,
): Promise<void> {
  await db.query(sql.unsafe`
    UPDATE blog_subscribers
    SET state = 'pending', confirm_token_hash = ${tokenHash},
        confirm_token_expires_at = now() + make_interval(days => ${validDays}),
        last_mailed_at = now(), unsubscribed_at = NULL
    WHERE id = ${id}`);
}

export async function markSubscriberMailed(db: Db, id: string): Promise<void> {
  await db.query(sql.unsafe`UPDATE blog_subscribers SET last_mailed_at = now() WHERE id = ${id}`);
}

/** The pending subscriber a live confirm token belongs to, if any. Changes nothing. */
export async function findPendingByConfirmHash(db: Db, tokenHash: string): Promise<BlogSubscriber | null> {
  return db.maybeOne(sql.type(BlogSubscriber)`
    SELECT ${COLUMNS} FROM blog_subscribers
    WHERE confirm_token_hash = ${tokenHash} AND confirm_token_expires_at > now() AND state = 'pending'`);
}

/**
 * pending → confirmed for the holder of a live token, spending the token. Null when the token
 * is unknown, expired or already spent: the transition happens at most once.
 */
export async function confirmSubscriber(db: Db, tokenHash: string): Promise<BlogSubscriber | null> {
  return db.maybeOne(sql.type(BlogSubscriber)`
    UPDATE blog_subscribers
    SET state = 'confirmed', confirmed_at = now(), confirm_token_hash = NULL, confirm_token_expires_at = NULL
    WHERE confirm_token_hash = ${tokenHash} AND confirm_token_expires_at > now() AND state = 'pending'
    RETURNING ${COLUMNS}`);
}

/** Any state → unsubscribed, spending a pending confirm token too. Idempotent; null for an unknown id. */
export async function unsubscribeSubscriber(db: Db, id: string): Promise<BlogSubscriber | null> {
  return db.maybeOne(sql.type(BlogSubscriber)`
    UPDATE blog_subscribers
    SET state = 'unsubscribed', unsubscribed_at = coalesce(unsubscribed_at, now()),
        confirm_token_hash = NULL, confirm_token_expires_at = NULL
    WHERE id = ${id}
    RETURNING ${COLUMNS}`);
}
