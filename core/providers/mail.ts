import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config.ts';

export type OutgoingMail = { to: string; subject: string; text: string; html?: string; replyTo?: string };

export type Mailer = { send(mail: OutgoingMail): Promise<{ messageId: string }> };

/**
 * SMTP through nodemailer in production. In sandbox mode nodemailer builds the same message
 * and it is handed to the sandbox's mail catcher over HTTP, the way a mail API would take it.
 */
export function createMailer(config: Config): Mailer {
  if (config.mail.smtpUrl) {
    const transport: Transporter = nodemailer.createTransport(config.mail.smtpUrl);
    return {
      async send(mail) {
        const info = await transport.sendMail({ from: config.mail.from, ...mail });
        return { messageId: String(info.messageId) };
      },
    };
  }
  if (!config.sandbox.enabled) throw new Error('No SMTP_URL and the sandbox is off: mail cannot be sent.');
  const transport = nodemailer.createTransport({ jsonTransport: true });
  const catcher = `${config.sandbox.url}/sandbox/mail`;
  return {
    async send(mail) {
      const info = await transport.sendMail({ from: config.mail.from, ...mail });
      const response = await fetch(catcher, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: String(info.message),
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) throw new Error(`sandbox mail catcher answered ${response.status}`);
      return { messageId: String(info.messageId) };
    },
  };
}
