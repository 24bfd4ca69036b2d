import { createChallenge, verifySolution, type Challenge, type Solution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { hashCode, hashToken } from '../../core/crypto/crypto.ts';
import { isUnderAttack, markUnderAttack, spendInboxMail } from '../../core/db/codeMailBudgets.ts';
import { isKnownDevice } from '../../core/db/knownDevices.ts';
import { useProof } from '../../core/db/usedProofs.ts';
import {
  codeSendStep,
  type CodeSendStep,
  inboxBusyMessage,
  inboxRetryAfterSeconds,
  PROVE_WORK_MESSAGE,
} from '../../core/domain/codeLimits.ts';
import { HttpError, tooManyRequests } from '../errors.ts';
import { DEVICE_COOKIE, readCookie } from './cookies.ts';
import { accountPair } from './throttle.ts';
import type { AppContext } from '../context.ts';
import type { Services } from '../services.ts';

/** What a request for an emailed code asks: which mail, for whom, from which browser. */
type CodeMailRequest = {
  /** Which mail: sign-up code, login code or reset link (each has its own per-asker budgets). */
  purpose: 'register' | 'login' | 'link';
  email: string;
  /** The asking browser's requester hash (api/auth/throttle.ts). */
  requesterHash: string;
  /** A resend: one a minute per browser and address. */
  minute: boolean;
  /** The proof of work the SPA sent, if any. */
  proof: string | undefined;
};

/**
 * The budgets a request for an emailed code spends, all following the asker (the rules are
 * core/domain/codeLimits.ts): per address, per browser and address, per email and address, and
 * the inbox's own budget, which a browser that signed in to the account never meets and which
 * strangers can make wait at most five minutes (then a proof of work gates new browsers).
 */
export async function spendCodeMail(
  ctx: AppContext,
  services: Services,
  request: CodeMailRequest,
): Promise<void> {
  const step = await spendAskerBudgets(ctx, services, request);
  await spendInboxBudget(services, request.email, step);
}

/**
 * The asker's side of `spendCodeMail`: the proof of work while the inbox is under attack, then
 * the per-address, per-browser and per-(email, address) budgets. Answers what the inbox's budget
 * must then do, for `spendInboxBudget` once it is sure a mail goes.
 */
export async function spendAskerBudgets(
  ctx: AppContext,
  services: Services,
  request: CodeMailRequest,
): Promise<Exclude<CodeSendStep, 'prove-work'>> {
  const { limiters, db } = services;
  const { purpose, email } = request;
  const device = readCookie(ctx, DEVICE_COOKIE, { production: services.config.production });
  const knownBrowser = device ? await isKnownDevice(db, email, hashToken(device)) : false;
  const underAttack = knownBrowser ? false : await isUnderAttack(db, email);
  const provedWork = underAttack && request.proof ? await checkProof(services, request.proof) : false;
  const step = codeSendStep({ knownBrowser, underAttack, provedWork });
  // Before any budget is spent: the answer with the puzzle solved is the one that counts.
  if (step === 'prove-work') {
    throw new HttpError(428, PROVE_WORK_MESSAGE, {}, { details: { proofOfWork: true } });
  }
  await limiters.codeSendIp.consume(ctx.ip);
  if (request.minute) {
    await limiters.codeSendPairMinute.consume(`${purpose}:${email}|${request.requesterHash}|${ctx.ip}`);
  }
  await limiters.codeSendPairHour.consume(accountPair(ctx, `${purpose}:${email}`));
  return step;
}

/**
 * The inbox's side of `spendCodeMail`, spent only for a mail that goes: a request refused for
 * another reason (a sign-up of an email that has an account) must not use up the owner's
 * inbox, or mark it under attack.
 */
export async function spendInboxBudget(
  services: Services,
  email: string,
  step: Exclude<CodeSendStep, 'prove-work'>,
): Promise<void> {
  const spent = await spendInboxMail(services.db, email);
  if (step === 'send-known' || spent.allowed) return;
  await markUnderAttack(services.db, email);
  const wait = inboxRetryAfterSeconds(spent.tat.getTime(), Date.now());
  throw tooManyRequests(wait, inboxBusyMessage(wait));
}

/** How hard the puzzle is: a derived key starting with this many zero hex digits (~65 000 tries). */
const KEY_PREFIX = '0000';
const PROOF_TTL_MS = 10 * 60_000;

/** The signing key of our challenges, derived from APP_SECRET for this purpose only. */
function signingSecret(appSecret: string): string {
  return hashCode(appSecret, 'proof-of-work', 'altcha-signature');
}

/** A fresh proof-of-work challenge (ALTCHA's, solved by the SPA in the browser; nothing leaves us). */
export async function proofOfWorkChallenge(services: Services): Promise<Challenge> {
  return createChallenge({
    algorithm: 'SHA-256',
    cost: 1,
    keyPrefix: KEY_PREFIX,
    deriveKey,
    hmacSignatureSecret: signingSecret(services.config.appSecret),
    expiresAt: new Date(Date.now() + PROOF_TTL_MS),
  });
}

/** Whether `proof` (base64url JSON `{challenge, solution}`) solves a challenge of ours, unexpired and unused. */
async function checkProof(services: Services, proof: string): Promise<boolean> {
  let parsed: { challenge?: Challenge; solution?: Solution };
  try {
    parsed = JSON.parse(Buffer.from(proof, 'base64url').toString('utf8')) as typeof parsed;
  } catch {
    return false;
  }
  const { challenge, solution } = parsed;
  if (!challenge?.signature || !challenge.parameters || !solution) return false;
  if (challenge.parameters.keyPrefix !== KEY_PREFIX || challenge.parameters.algorithm !== 'SHA-256')
    return false;
  const result = await verifySolution({
    challenge,
    solution,
    deriveKey,
    hmacSignatureSecret: signingSecret(services.config.appSecret),
  }).catch((error: unknown) => {
    services.log.info({ err: error }, 'proof of work did not verify');
    return { verified: false };
  });
  if (!result.verified) return false;
  return useProof(services.db, challenge.signature, new Date(Date.now() + PROOF_TTL_MS));
}
