/**
 * Rules of the public site's two forms: the contact/feedback message (spec §3, §5, §8) and
 * the blog subscription (spec §2 Blogs, made real with double opt-in). Shared by the API's
 * schemas and the SPA's client-side checks so both say the same thing.
 */
import { SUPPORT_REPLY_TIME } from './constants.ts';

/** What the "Your field" select offers; the API accepts exactly these. */
export const FEEDBACK_FIELDS = [
  'Gaming',
  'Video editing',
  'Software development',
  'AI / machine learning',
  'Student',
  'Business',
  'Other',
] as const;

export const FEEDBACK_LIMITS = {
  name: 100,
  email: 254,
  message: 5000,
} as const;

export const FEEDBACK_MESSAGES = {
  /** Spec §5: all six fields are required. */
  required: 'Please fill in all six fields.',
  success: `Thank you! Your message has reached our team. We reply within ${SUPPORT_REPLY_TIME.label}.`,
  /** Spec §8: feedback failure shows the server's message, else this. */
  failureFallback: 'Delete failed, try again.',
  invalidEmail: 'Enter a valid email address.',
} as const;

/** A newsletter subscriber: `pending → confirmed`, or `unsubscribed`. */
export const SUBSCRIBER_STATES = ['pending', 'confirmed', 'unsubscribed'] as const;
export type SubscriberState = (typeof SUBSCRIBER_STATES)[number];

/** A subscriber who already confirmed is told so, not sent another confirmation. */
export function alreadySubscribed(state: SubscriberState): boolean {
  return state === 'confirmed';
}

/** Subscription timings. */
export const NEWSLETTER = {
  /** How long a confirmation link works. */
  confirmLinkDays: 7,
  /**
   * At most one mail per address in this window, however often it is submitted, so the form
   * cannot be used to flood someone else's inbox.
   */
  remailAfterMinutes: 10,
} as const;

export const NEWSLETTER_MESSAGES = {
  /** The same answer whatever the address's state, so the form reveals nobody's subscription. */
  checkInbox: 'Almost there! Check your inbox for a link to confirm your subscription.',
  invalidEmail: FEEDBACK_MESSAGES.invalidEmail,
  confirmed: 'You are subscribed. New posts will reach your inbox.',
  confirmInvalid:
    'This confirmation link has already been used or has expired. If you are not subscribed yet, subscribe again on the blog page.',
  unsubscribed: 'You have been unsubscribed. You will get no more blog emails from us.',
  unsubscribeInvalid: 'This unsubscribe link is not valid. Use the link in the latest email we sent you.',
  failureFallback: 'Something went wrong. Please try again.',
} as const;
