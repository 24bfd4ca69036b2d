import { z } from 'zod';
import { checkEmail, EMAIL_MAX_LENGTH } from '../core/domain/email.ts';
import { passwordProblem } from '../core/domain/password.ts';
import { PHONE_INPUT_MAX_LENGTH, PHONE_MESSAGE, phoneDigits } from '../core/domain/phone.ts';

/**
 * The zod fields several routes take from people: a phone number, an email address and a new
 * password. Each asks the same core/domain rule the SPA's forms ask, so a form never passes
 * what the API refuses, and the API's message is the form's.
 */

/**
 * A phone number as typed ("+91 98765-43210", "098765 43210"), read as its 10 digits: what is
 * stored. A missing or malformed one gets PHONE_MESSAGE (or `requiredMessage` when empty).
 */
export function phoneField(requiredMessage = PHONE_MESSAGE) {
  return z
    .string({ error: requiredMessage })
    .trim()
    .min(1, requiredMessage)
    .max(PHONE_INPUT_MAX_LENGTH, PHONE_MESSAGE)
    .transform((value, ctx) => {
      const digits = phoneDigits(value);
      if (digits === null) {
        ctx.addIssue({ code: 'custom', message: PHONE_MESSAGE });
        return z.NEVER;
      }
      return digits;
    });
}

/**
 * A deliverable email address (core/domain/email.ts), answered as stored: lower-cased, with an
 * internationalised domain in punycode. `invalidMessage`, when given, replaces the rule's own
 * sentences (forms whose wording is fixed elsewhere).
 */
export function emailField(requiredMessage: string, invalidMessage?: string) {
  return z
    .string({ error: requiredMessage })
    .trim()
    .min(1, requiredMessage)
    .max(EMAIL_MAX_LENGTH * 4, invalidMessage ?? requiredMessage)
    .transform((value, ctx) => {
      const check = checkEmail(value);
      if (!check.ok) {
        ctx.addIssue({ code: 'custom', message: invalidMessage ?? check.message });
        return z.NEVER;
      }
      return check.email;
    });
}

/** A password to set (sign-up, reset, change): the checklist's rules and the maximum length. */
export function newPasswordField(requiredMessage: string) {
  return z
    .string({ error: requiredMessage })
    .min(1, requiredMessage)
    .superRefine((value, ctx) => {
      const problem = passwordProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}
