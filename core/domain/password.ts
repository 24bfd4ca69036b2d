/** The password policy (spec §2 Register, §5, §9). */

export const PASSWORD_MIN_LENGTH = 10;
/** Not in the spec: a ceiling so nobody can make the server hash a megabyte. */
export const PASSWORD_MAX_LENGTH = 128;
/**
 * The spec names @$!%*?& as the special characters; any character that is neither a letter nor
 * a digit counts here (a superset: "Ravi#Cloud2026" is a fine password). docs/deviations.md.
 */
export const SPECIAL_CHARACTER = /[^\p{L}\p{N}]/u;

export const PASSWORD_MESSAGE = 'Enter a valid Password';
export const PASSWORD_TOO_LONG_MESSAGE = `Password must be at most ${PASSWORD_MAX_LENGTH} characters.`;

export const PASSWORD_RULE_IDS = [
  'length',
  'uppercase',
  'lowercase',
  'number',
  'special',
  'maxLength',
] as const;
export type PasswordRuleId = (typeof PASSWORD_RULE_IDS)[number];

export interface PasswordRule {
  id: PasswordRuleId;
  /** The checklist line, exactly as the spec words it. */
  label: string;
  test: (password: string) => boolean;
}

// Lengths count characters as people see them (code points), not UTF-16 units.
function length(password: string): number {
  return [...password].length;
}

/**
 * The live checklist of the register form: the spec's five lines in its order, then the maximum
 * length (ours: without it on the list, an over-long password was refused with no reason given).
 */
export const PASSWORD_RULES: readonly PasswordRule[] = [
  { id: 'length', label: 'Minimum 10 Characters', test: (p) => length(p) >= PASSWORD_MIN_LENGTH },
  { id: 'uppercase', label: 'At least Uppercase letter (A–Z)', test: (p) => /[A-Z]/.test(p) },
  { id: 'lowercase', label: 'At least Lowercase letter (a–z)', test: (p) => /[a-z]/.test(p) },
  { id: 'number', label: 'Minimum one Number (0–9)', test: (p) => /[0-9]/.test(p) },
  {
    id: 'special',
    label: 'At least one Special Character (any symbol, e.g. @ # $ ! _ -)',
    test: (p) => SPECIAL_CHARACTER.test(p),
  },
  {
    id: 'maxLength',
    label: `Maximum ${PASSWORD_MAX_LENGTH} Characters`,
    test: (p) => length(p) <= PASSWORD_MAX_LENGTH,
  },
];

export interface PasswordCheck {
  id: PasswordRuleId;
  label: string;
  passed: boolean;
}

/** Each checklist line with whether the password meets it. */
export function passwordChecklist(password: string): PasswordCheck[] {
  return PASSWORD_RULES.map((rule) => ({ id: rule.id, label: rule.label, passed: rule.test(password) }));
}

/**
 * Every checklist rule holds, the maximum length included. Any character is allowed
 * (spaces, non-Latin letters): the rules ask for one of each kind, not for nothing else.
 */
export function isValidPassword(password: string): boolean {
  return PASSWORD_RULES.every((rule) => rule.test(password));
}

/** The message to show for a password, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (length(password) > PASSWORD_MAX_LENGTH) return PASSWORD_TOO_LONG_MESSAGE;
  return isValidPassword(password) ? null : PASSWORD_MESSAGE;
}

/**
 * Changing the password while signed in (the Security page, `POST /api/user/password`). An
 * account made with Google has no password yet: it sets a first one without a current one.
 *
 * The second factor is not asked again. The change already needs a proof beyond the session
 * where one exists (the current password), and two-factor stays on: on such an account a
 * password never signs anyone in alone, so whoever changes it still needs the authenticator
 * for every new login. What guards against a stolen session is that every other session is
 * signed out and the owner is mailed at once.
 */
export const PASSWORD_CHANGE_MESSAGES = {
  currentRequired: 'Please enter your current password.',
  currentWrong: 'Your current password is not right.',
  newRequired: 'Please enter a new password.',
  sameAsCurrent: 'Choose a new password that is different from your current one.',
  raced: 'Your password was changed a moment ago, perhaps in another tab. Please try again.',
  changed: 'Your password has been changed. Every other device has been signed out.',
  set: 'Your password is set: you can now also log in with your email and password. Every other device has been signed out.',
} as const;

/** Whether a password change must first prove the current password (an account without one sets its first). */
export function passwordChangeNeedsCurrent(account: { hasPassword: boolean }): boolean {
  return account.hasPassword;
}
