import { decrypt, encrypt } from '../crypto/crypto.ts';
import { escapeHtml } from '../escape.ts';
import type { Payload } from '../queue.ts';

/**
 * Mail secrets kept out of the job table. A renderer writes `{{sealed.code}}` where the secret
 * goes and puts the values, encrypted, in the payload's `sealed` field; the worker fills them
 * in right before handing the mail to SMTP. pg-boss keeps job rows (and dead letters) for
 * days, and operators list them with `scripts/jobs`: they must never show a live code or link.
 */

type Mail = Payload<'email-send'>;

const PURPOSE = 'email-sealed';
const PLACEHOLDER = /\{\{sealed\.([a-zA-Z][a-zA-Z0-9]{0,30})\}\}/g;

/** Encrypts the secret values a mail's `{{sealed.NAME}}` placeholders stand for. */
export function sealMailSecrets(appSecret: string, values: Record<string, string>): string {
  return encrypt(appSecret, PURPOSE, JSON.stringify(values));
}

/**
 * The mail as it is sent: placeholders replaced by the opened values (HTML-escaped in the
 * HTML part). Throws if the seal does not open or a placeholder has no value, so a broken
 * mail is retried or dead-lettered rather than sent with a hole in it.
 */
export function openSealedMail(appSecret: string, mail: Mail): Mail {
  if (!mail.sealed) return mail;
  const values = JSON.parse(decrypt(appSecret, PURPOSE, mail.sealed)) as Record<string, unknown>;
  const fill = (text: string, escape: boolean) =>
    text.replace(PLACEHOLDER, (_, name: string) => {
      const value = values[name];
      if (typeof value !== 'string') throw new Error(`sealed mail has no value for ${name}`);
      return escape ? escapeHtml(value) : value;
    });
  const { sealed: _sealed, ...rest } = mail;
  return {
    ...rest,
    subject: fill(mail.subject, false),
    text: fill(mail.text, false),
    ...(mail.html ? { html: fill(mail.html, true) } : {}),
  };
}
