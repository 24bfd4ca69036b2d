import { escapeHtml } from '../escape.ts';
import type { Payload } from '../queue.ts';
import { sealMailSecrets } from './sealed.ts';
import { DELETION_WORDING } from '../domain/accountDeletion.ts';

/**
 * The account mails: sign-up code, login code, reset link, and notices of security changes.
 * Codes and links travel sealed (core/emails/sealed.ts): the job row holds only ciphertext.
 */

type Mail = Payload<'email-send'>;

const SIGN_OFF = [
  '',
  'If this was not you, you can ignore this mail; nothing changes without the code.',
  '',
  '— Legend Cloud',
];

function html(lines: string[]): string {
  // Placeholders survive escaping unchanged ({, }, . and letters are not escaped).
  return lines
    .filter((line) => line !== '')
    .map((line) => `<p>${escapeHtml(line)}</p>`)
    .join('\n');
}

function mail(kind: string, to: string, subject: string, lines: string[], sealed?: string): Mail {
  return { kind, to, subject, text: lines.join('\n'), html: html(lines), ...(sealed ? { sealed } : {}) };
}

/** The 6-digit code that finishes a sign-up. */
export function registrationCodeMail(
  appSecret: string,
  to: string,
  name: string,
  code: string,
  minutes: number,
): Mail {
  return mail(
    'register-code',
    to,
    'Your Legend Cloud verification code',
    [
      `Hi ${name},`,
      '',
      'Your verification code is {{sealed.code}}.',
      `It expires in ${minutes} minutes.`,
      ...SIGN_OFF,
    ],
    sealMailSecrets(appSecret, { code }),
  );
}

/** The 6-digit code for "Login via OTP". */
export function loginCodeMail(appSecret: string, to: string, code: string, minutes: number): Mail {
  return mail(
    'login-code',
    to,
    'Your Legend Cloud login code',
    ['Hello,', '', 'Your login code is {{sealed.code}}.', `It expires in ${minutes} minutes.`, ...SIGN_OFF],
    sealMailSecrets(appSecret, { code }),
  );
}

/** The single-use reset link ("Reset via Link"). */
export function passwordResetMail(appSecret: string, to: string, url: string, minutes: number): Mail {
  return mail(
    'password-reset',
    to,
    'Reset your Legend Cloud password',
    [
      'Hello,',
      '',
      'Open this link to set a new password:',
      '{{sealed.url}}',
      `The link works once and expires in ${minutes} minutes.`,
      '',
      'If you did not ask for it, ignore this mail: your password stays as it is.',
      '',
      '— Legend Cloud',
    ],
    sealMailSecrets(appSecret, { url }),
  );
}

/** After a reset: every session was signed out; say so, in case it was not the owner. */
export function passwordChangedMail(to: string, supportEmail: string): Mail {
  return mail('password-changed', to, 'Your Legend Cloud password was changed', [
    'Hello,',
    '',
    'The password of your Legend Cloud account was just changed and every device was signed out.',
    `If this was not you, reply to ${supportEmail} at once.`,
    '',
    '— Legend Cloud',
  ]);
}

/**
 * A password changed (or a first one set, on an account made with Google) while signed in:
 * every other session was signed out; say so, in case it was not the owner.
 */
export function passwordChangedWhileSignedInMail(to: string, first: boolean, supportEmail: string): Mail {
  return mail(
    first ? 'password-set' : 'password-changed',
    to,
    first ? 'A password was set on your Legend Cloud account' : 'Your Legend Cloud password was changed',
    [
      'Hello,',
      '',
      first
        ? 'A password was just set on your Legend Cloud account, from your Security page. You can now log in with your email and this password, as well as with Google.'
        : 'The password of your Legend Cloud account was just changed from your Security page.',
      'Every other device signed in to your account was signed out.',
      `If this was not you, reset your password from the login page and reply to ${supportEmail} at once.`,
      '',
      '— Legend Cloud',
    ],
  );
}

/**
 * Sign-ins with the right password kept failing at the second step, or never finished it from
 * addresses the owner has not used: someone has the password. Says when, from which address
 * (roughly where), and where to change it.
 */
export function passwordKnownMail(
  to: string,
  what: { at: Date; address: string; changeUrl: string; supportEmail: string },
): Mail {
  const when = `${what.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return mail('password-known', to, 'Someone has your Legend Cloud password', [
    'Hello,',
    '',
    `At ${when}, someone signed in to your Legend Cloud account with your password from the internet address ${what.address.replace(/^::ffff:/, '')}, but did not give your two-factor code, several times.`,
    'Your two-factor sign-in stopped them, but they know your password.',
    `Change your password now: ${what.changeUrl}`,
    `If it was you, you can ignore this mail. Questions: ${what.supportEmail}.`,
    '',
    '— Legend Cloud',
  ]);
}

/**
 * Someone signed in as the owner kept typing a wrong current password into "change password":
 * a session is in hands that do not know the password. Says when, from which address, and how
 * to sign every device out (a reset does).
 */
export function passwordGuessedMail(
  to: string,
  what: { at: Date; address: string; resetUrl: string; supportEmail: string },
): Mail {
  const when = `${what.at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return mail('password-guessed', to, 'Someone tried to change your Legend Cloud password', [
    'Hello,',
    '',
    `At ${when}, someone signed in to your Legend Cloud account tried to change its password and typed the current password wrong several times, from the internet address ${what.address.replace(/^::ffff:/, '')}. They were stopped; your password is unchanged.`,
    `If it was not you, a device signed in as you is in someone else's hands: reset your password now, which signs out every device: ${what.resetUrl}`,
    `If it was you, you can ignore this mail. Questions: ${what.supportEmail}.`,
    '',
    '— Legend Cloud',
  ]);
}

/** Two-factor sign-in turned on or off. */
export function twoFactorChangedMail(to: string, enabled: boolean, supportEmail: string): Mail {
  return mail(
    enabled ? 'two-factor-enabled' : 'two-factor-disabled',
    to,
    enabled ? 'Two-factor sign-in is on' : 'Two-factor sign-in is off',
    [
      'Hello,',
      '',
      enabled
        ? 'Two-factor sign-in is now on for your Legend Cloud account. Keep your recovery codes somewhere safe.'
        : 'Two-factor sign-in is now off for your Legend Cloud account.',
      `If this was not you, reply to ${supportEmail} at once.`,
      '',
      '— Legend Cloud',
    ],
  );
}

/** What an account deletion did, for its confirmation mail: the same facts the dialog listed. */
export type DeletionSummary = {
  /** Machines shut down and terminated, with their disks. */
  machines: number;
  /** The plan that was in force, if any, and the hours it had left. */
  plan: { name: string; hoursLeft: string } | null;
  /** Invoices kept, with the person's details removed. */
  invoices: number;
  /** A trial was bought with their phone number, which is kept (one trial per number). */
  trialPhoneKept: boolean;
};

/** Confirms a deletion to the address that was deleted: what went, what stays, whom to ask. */
export function accountDeletedMail(
  to: string,
  name: string,
  summary: DeletionSummary,
  supportEmail: string,
): Mail {
  const W = DELETION_WORDING;
  const gone = [
    ...(summary.machines > 0
      ? [
          summary.machines > 1
            ? `- Your ${summary.machines} cloud PCs are shut down and terminated: nothing of yours keeps running or is billed.`
            : `- ${W.machine}`,
          summary.machines > 1 ? '- Their disks are deleted, with every file on them.' : `- ${W.disk}`,
        ]
      : [`- ${W.noMachine}`]),
    `- ${W.snapshots}`,
    ...(summary.plan
      ? [
          `- Your ${summary.plan.name} plan is cancelled; its ${summary.plan.hoursLeft} left are given up. Nothing is refunded.`,
        ]
      : []),
    `- ${W.personal}`,
  ];
  const kept = [
    summary.invoices > 0
      ? `- ${W.invoicesKept} ${W.invoicesMinimised}`
      : `- You had no invoices. ${W.invoicesKept}`,
    ...(summary.trialPhoneKept ? [`- ${W.trialPhone}`] : []),
  ];
  return mail('account-deleted', to, 'Your Legend Cloud account has been deleted', [
    `Hi ${name},`,
    '',
    'As you asked, your Legend Cloud account has been deleted.',
    '',
    'What is deleted:',
    ...gone,
    '',
    'What is kept:',
    ...kept,
    '',
    `If you did not ask for this, write to ${supportEmail} at once.`,
    '',
    '— Legend Cloud',
  ]);
}
