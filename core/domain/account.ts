/**
 * Accounts (spec §2 Register, Login, Forgot password, Reset password, Profile dropdown; §5;
 * §8): the rules and words both the server and the SPA use.
 */

import { EMAIL_MESSAGES } from './email.ts';
import { SESSION_ENDED_MESSAGE, SIGNED_OUT_PASSWORD_CHANGED_MESSAGE } from './sessionEnded.ts';

export { EMAIL_MAX_LENGTH, normaliseEmail } from './email.ts';

export const NAME_MAX_LENGTH = 100;
export const OTP_PATTERN = /^\d{6}$/;

/**
 * The loose shape of an address we already hold (something@something.tld, no spaces): what the
 * mail queue checks, so a mail to an account made under older, looser rules still goes. What a
 * form or the API accepts from now on is `isDeliverableEmail` (core/domain/email.ts).
 */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The spec's strings (§8) and ours for the same screens, kept in one place. */
export const ACCOUNT_MESSAGES = {
  userExists: 'User already exists. Please login.',
  serverUnreachable: 'Server not reachable',
  somethingWrong: 'Something went wrong',
  unknownError: 'Unknown Error',
  logoutFailed: 'Could not log out: the server could not be reached. Please try again.',
  // Ours: a signed-in page whose session expired or was revoked (every call then answers 401).
  sessionEnded: SESSION_ENDED_MESSAGE,
  signedOutPasswordChanged: SIGNED_OUT_PASSWORD_CHANGED_MESSAGE,
  sessionEndedLink: 'Log in again',
  verifyFailed: 'OTP verification failed',
  resendSuccess: 'A new OTP has been sent to your email.',
  resendFailed: 'Could not resend OTP',
  loginFailed: 'Invalid credentials',
  forgotRequestFailed: 'Error sending request',
  forgotOtpFailed: 'Invalid or expired OTP',
  resetFailed: 'Reset failed.',
  resetMissing: 'Invalid or missing reset token or email.',
  resetEmpty: 'Please enter a new password.',
  nameEmpty: 'Name cannot be empty',
  deleteConfirm: 'Are you sure you want to delete your account?',
  deleteFailed: 'Delete failed, try again.',
  // Ours, where the spec names a rule but not its words.
  nameRequired: 'Name is required.',
  emailRequired: EMAIL_MESSAGES.required,
  emailInvalid: EMAIL_MESSAGES.invalid,
  phoneRequired: 'Phone is required.',
  loginRequired: 'Please enter your email and password.',
  otpRequired: 'Please enter the OTP.',
  otpInvalid: 'The OTP is the 6-digit code from your email.',
  codeSent: 'OTP sent to your email.',
  resetLinkSent: 'Reset link sent successfully. Please check your email.',
  loginCodeSent: 'OTP sent successfully. Please check your email.',
  resetDone: 'Password reset successful. Please log in with your new password.',
  twoFactorPrompt: 'Enter the 6-digit code from your authenticator app, or one of your recovery codes.',
} as const;
