import { z } from 'zod';
import { DESKTOP_TOKEN_TTL_SECONDS, type DcvOutcome } from '../domain/desktop.ts';
import { sql, type Db } from './pool.ts';

/**
 * One-time tokens for the browser desktop (Amazon DCV) and the record of every verification
 * DCV asked for. Only the token's SHA-256 is stored. Consuming a token is one conditional UPDATE,
 * so a replay, or two verifications racing, find it used and get nothing.
 */

/** Stores a freshly minted token for the machine at `publicIp`; answers when it expires. */
export async function insertDesktopToken(
  db: Db,
  input: { tokenHash: string; userId: string; vmId: string; publicIp: string; now: Date },
): Promise<Date> {
  const expiresAt = new Date(input.now.getTime() + DESKTOP_TOKEN_TTL_SECONDS * 1000);
  await db.query(sql.unsafe`
    INSERT INTO desktop_tokens (token_hash, user_id, vm_id, public_ip, created_at, expires_at)
    VALUES (${input.tokenHash}, ${input.userId}, ${input.vmId}, ${input.publicIp},
            ${input.now.toISOString()}, ${expiresAt.toISOString()})`);
  return expiresAt;
}

const Consumed = z.object({ id: z.uuid(), vm_id: z.uuid(), user_id: z.uuid() });

/**
 * Uses the token if, at `now`, it is unused and unexpired and its machine is running at the
 * address it was minted for, which is also the address the verification came from (the DCV
 * server on that machine). `state = 'running' AND public_ip IS NOT NULL` is
 * `desktopReachable` (core/domain/lifecycle.ts) in SQL; the desktop tokens' test proves they
 * agree. Null: refused, and nothing changed.
 */
export async function consumeDesktopToken(
  db: Db,
  input: { tokenHash: string; callerAddress: string; now: Date },
): Promise<z.infer<typeof Consumed> | null> {
  return db.maybeOne(sql.type(Consumed)`
    UPDATE desktop_tokens t SET used_at = ${input.now.toISOString()}
    FROM vms v
    WHERE t.token_hash = ${input.tokenHash}
      AND t.used_at IS NULL
      AND t.expires_at > ${input.now.toISOString()}
      AND v.id = t.vm_id
      AND v.state = 'running' AND v.public_ip IS NOT NULL
      AND v.public_ip = t.public_ip
      AND v.public_ip = ${input.callerAddress}
    RETURNING t.id, t.vm_id, t.user_id`);
}

const TokenFacts = z.object({
  id: z.uuid(),
  vm_id: z.uuid(),
  token_ip: z.string(),
  used: z.boolean(),
  expired: z.boolean(),
  vm_state: z.string(),
  vm_ip: z.string().nullable(),
});

/**
 * Why a token that was not consumed was refused, for the record (DCV is told only "no"). Read
 * after the refusal, so it may see a later state; it never decides anything.
 */
export async function refusalOf(
  db: Db,
  input: { tokenHash: string; callerAddress: string; now: Date },
): Promise<{ outcome: Exclude<DcvOutcome, 'accepted'>; tokenId: string | null }> {
  const facts = await db.maybeOne(sql.type(TokenFacts)`
    SELECT t.id, t.vm_id, t.public_ip AS token_ip, t.used_at IS NOT NULL AS used,
           t.expires_at <= ${input.now.toISOString()} AS expired, v.state AS vm_state, v.public_ip AS vm_ip
    FROM desktop_tokens t JOIN vms v ON v.id = t.vm_id
    WHERE t.token_hash = ${input.tokenHash}`);
  if (!facts) return { outcome: 'unknown', tokenId: null };
  const outcome = facts.used
    ? 'used'
    : facts.expired
      ? 'expired'
      : facts.vm_state !== 'running' || facts.vm_ip === null
        ? 'not-running'
        : 'wrong-machine';
  return { outcome, tokenId: facts.id };
}

/** The live machine that holds `address` now, if any: who is asking us to verify. */
export async function findVmIdByPublicIp(db: Db, address: string): Promise<string | null> {
  return db.maybeOneFirst(sql.type(z.object({ id: z.uuid() }))`
    SELECT id FROM vms WHERE public_ip = ${address} AND state = 'running'
    ORDER BY state_changed_at DESC LIMIT 1`);
}

export type DesktopTokenUse = {
  tokenId: string | null;
  vmId: string | null;
  outcome: DcvOutcome;
  sessionId: string;
  clientAddress: string;
  verifierAddress: string;
  at: Date;
};

export async function recordDesktopTokenUse(db: Db, use: DesktopTokenUse): Promise<void> {
  await db.query(sql.unsafe`
    INSERT INTO desktop_token_uses
      (token_id, vm_id, accepted, outcome, session_id, client_address, verifier_address, at)
    VALUES (${use.tokenId}, ${use.vmId}, ${use.outcome === 'accepted'}, ${use.outcome},
            ${use.sessionId}, ${use.clientAddress}, ${use.verifierAddress}, ${use.at.toISOString()})`);
}
