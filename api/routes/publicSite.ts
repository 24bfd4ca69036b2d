import Router from '@koa/router';
import { z } from 'zod';
import {
  FEEDBACK_FIELDS,
  FEEDBACK_LIMITS,
  alreadySubscribed,
  NEWSLETTER,
  NEWSLETTER_MESSAGES,
} from '../../core/domain/publicSite.ts';
import { insertFeedbackMessage } from '../../core/db/feedback.ts';
import { recentProvisionDistribution, recentProvisionTimes } from '../../core/db/provisionStats.ts';
import { timeToDesktopStat } from '../../core/domain/content/timeToDesktop.ts';
import {
  confirmSubscriber,
  findPendingByConfirmHash,
  lockSubscriberForSubscribe,
  markSubscriberMailed,
  startConfirmation,
  unsubscribeSubscriber,
} from '../../core/db/blogSubscribers.ts';
import {
  alreadySubscribedMail,
  feedbackMail,
  subscribeConfirmMail,
  subscribeWelcomeMail,
} from '../../core/emails/publicSite.ts';
import {
  confirmUrl,
  hashConfirmToken,
  newConfirmToken,
  readUnsubscribeToken,
  unsubscribeToken,
  unsubscribeUrl,
} from '../../core/commands/newsletter.ts';
import { sendJob } from '../../core/queue.ts';
import { badRequest } from '../errors.ts';
import { emailField, phoneField } from '../fields.ts';
import { input, validate } from '../middleware/validate.ts';
import { limitByIp } from '../middleware/rateLimit.ts';
import type { AppState } from '../context.ts';
import type { Services } from '../services.ts';

const required = (field: string) => `${field} is required.`;

const requiredText = (field: string, max: number) =>
  z
    .string({ error: required(field) })
    .trim()
    .min(1, required(field))
    .max(max, `${field} is too long.`);

/** Spec §3 "Feedback/contact message"; all six fields required (spec §5). */
export const FeedbackBody = z.object({
  firstName: requiredText('First Name', FEEDBACK_LIMITS.name),
  lastName: requiredText('Last Name', FEEDBACK_LIMITS.name),
  field: z.enum(FEEDBACK_FIELDS, { error: 'Choose your field from the list.' }),
  contactNumber: phoneField(),
  email: emailField(required('Email')),
  message: requiredText('Message', FEEDBACK_LIMITS.message),
});
type FeedbackBody = z.infer<typeof FeedbackBody>;

export const SubscribeBody = z.object({ email: emailField(NEWSLETTER_MESSAGES.invalidEmail) });
type SubscribeBody = z.infer<typeof SubscribeBody>;

const Token = (message: string) =>
  z.object({ token: z.string({ error: message }).trim().min(1, message).max(200, message) });
const ConfirmToken = Token(NEWSLETTER_MESSAGES.confirmInvalid);
const UnsubscribeToken = Token(NEWSLETTER_MESSAGES.unsubscribeInvalid);
type TokenInput = { token: string };

/**
 * The public site's API: the contact address, the contact/feedback form and the blog
 * subscription (double opt-in). Nothing here needs a session.
 */
export function publicSiteRoutes(services: Services): Router<AppState> {
  const router = new Router<AppState>();
  const { limiters } = services;

  // The addresses the site shows come from configuration, never from the bundle; the
  // time-to-desktop figure from recorded provisions, never from a constant.
  router.get('/site', async (ctx) => {
    // Indexed reads of at most RECENT_PROVISIONS rows each (sql/0011, sql/0065).
    const [provisionTimes, setupTimes] = await Promise.all([
      recentProvisionTimes(services.db),
      recentProvisionDistribution(services.db),
    ]);
    ctx.body = {
      contactEmail: services.config.contactEmail,
      supportEmail: services.config.supportEmail,
      timeToDesktop: timeToDesktopStat(provisionTimes),
      // The same provisions by kind: what the wait after paying is estimated from.
      setupTimes,
      // What the connection check page measures, and the region it stands for.
      connectionCheck: {
        pingUrl: services.config.connectionCheck.pingUrl,
        region: services.config.connectionCheck.region,
      },
    };
  });

  // Validate first: only well-formed messages spend the caller's budget.
  router.post('/feedback', validate(FeedbackBody), limitByIp(limiters.feedback), async (ctx) => {
    const body = input<FeedbackBody>(ctx);
    const message = await services.db.transaction(async (trx) => {
      const row = await insertFeedbackMessage(trx, { ...body, ip: ctx.ip || null });
      await sendJob(services.boss, 'email-send', feedbackMail(row, services.config.supportEmail), {
        db: trx,
      });
      return row;
    });
    ctx.status = 201;
    ctx.body = { id: message.id };
  });

  /**
   * One answer for every address and state (new, pending, confirmed, unsubscribed), so the
   * form tells nobody who is subscribed. What differs is only the mail the owner receives.
   */
  router.post('/subscribe', validate(SubscribeBody), limitByIp(limiters.subscribe), async (ctx) => {
    const { email } = input<SubscribeBody>(ctx);
    const { publicUrl, appSecret } = services.config;
    await services.db.transaction(async (trx) => {
      const { subscriber, recentlyMailed } = await lockSubscriberForSubscribe(
        trx,
        email,
        NEWSLETTER.remailAfterMinutes,
      );
      if (recentlyMailed) return;
      const links = {
        to: email,
        unsubscribeUrl: unsubscribeUrl(publicUrl, unsubscribeToken(appSecret, subscriber.id)),
      };
      if (alreadySubscribed(subscriber.state)) {
        await markSubscriberMailed(trx, subscriber.id);
        await sendJob(services.boss, 'email-send', alreadySubscribedMail(links), { db: trx });
        return;
      }
      const { token, hash } = newConfirmToken();
      await startConfirmation(trx, subscriber.id, hash, NEWSLETTER.confirmLinkDays);
      const mail = subscribeConfirmMail({ ...links, confirmUrl: confirmUrl(publicUrl, token) });
      await sendJob(services.boss, 'email-send', mail, { db: trx });
    });
    ctx.status = 202;
    ctx.body = { message: NEWSLETTER_MESSAGES.checkInbox };
  });

  // A look without a side effect, so the confirmation page can say "expired" up front.
  router.get(
    '/subscribe/confirm',
    validate(ConfirmToken, 'query'),
    limitByIp(limiters.subscriptionLinks),
    async (ctx) => {
      const { token } = input<TokenInput>(ctx);
      const pending = await findPendingByConfirmHash(services.db, hashConfirmToken(token));
      if (!pending) throw badRequest(NEWSLETTER_MESSAGES.confirmInvalid);
      ctx.body = { status: 'pending' };
    },
  );

  router.post(
    '/subscribe/confirm',
    validate(ConfirmToken),
    limitByIp(limiters.subscriptionLinks),
    async (ctx) => {
      const { token } = input<TokenInput>(ctx);
      const { publicUrl, appSecret } = services.config;
      const confirmed = await services.db.transaction(async (trx) => {
        const row = await confirmSubscriber(trx, hashConfirmToken(token));
        if (!row) return null;
        const links = {
          to: row.email,
          unsubscribeUrl: unsubscribeUrl(publicUrl, unsubscribeToken(appSecret, row.id)),
        };
        await sendJob(services.boss, 'email-send', subscribeWelcomeMail({ ...links, publicUrl }), {
          db: trx,
        });
        return row;
      });
      if (!confirmed) throw badRequest(NEWSLETTER_MESSAGES.confirmInvalid);
      ctx.body = { status: 'confirmed', message: NEWSLETTER_MESSAGES.confirmed };
    },
  );

  router.post(
    '/subscribe/unsubscribe',
    validate(UnsubscribeToken),
    limitByIp(limiters.subscriptionLinks),
    async (ctx) => {
      const { token } = input<TokenInput>(ctx);
      const id = readUnsubscribeToken(services.config.appSecret, token);
      const row = id ? await unsubscribeSubscriber(services.db, id) : null;
      if (!row) throw badRequest(NEWSLETTER_MESSAGES.unsubscribeInvalid);
      ctx.body = { status: 'unsubscribed', message: NEWSLETTER_MESSAGES.unsubscribed };
    },
  );

  return router;
}
