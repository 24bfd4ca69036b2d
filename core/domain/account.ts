/**
 * Accounts (spec §2 Register, Login, Forgot password, Reset password, Profile dropdown; §5;
 * §8): the rules and words both the server and the SPA use.
 */

export const NAME_MAX_LENGTH = 100;
export const EMAIL_MAX_LENGTH = 254;
export const OTP_PATTERN = /^\d{6}$/;

/**
 * A pragmatic address check: something@something.tld, no spaces. The mailed code proves the
 * rest; a stricter pattern only refuses real addresses.
 */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Emails are compared and stored trimmed and lower-cased (spec §5 "Email is lower-cased"). */
export function normaliseEmail(value: string): string {
  return value.trim().toLowerCase();
}

export function isValidEmail(value: string): boolean {
  const email = normaliseEmail(value);
  return email.length <= EMAIL_MAX_LENGTH && EMAIL_PATTERN.test(email);
}

/** The spec's strings (§8) and ours for the same screens, kept in one place. */
export const ACCOUNT_MESSAGES = {
  userExists: 'User already exists. Please login.',
  serverUnreachable: 'Server not reachable',
  somethingWrong: 'Something went wrong',
  unknownError: 'Unknown Error',
  logoutFailed: 'Could not log out: the server could not be reached. Please try again.',
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
  emailRequired: 'Email is required.',
  emailInvalid: 'Enter a valid email address.',
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
