import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../config/config.ts';

export type OutgoingMail = { to: string; subject: string; text: string; html?: string; replyTo?: string };

export type Mailer = { send(mail: OutgoingMail): Promise<{ messageId: string }>; close?: () => void };

/** SMTP connections kept open at once; the worker sends up to this many mails in parallel. */
export const SMTP_POOL_CONNECTIONS = 5;

/**
 * SMTP through nodemailer in production. In sandbox mode nodemailer builds the same message
 * and it is handed to the sandbox's mail catcher over HTTP, the way a mail API would take it.
 */
export function createMailer(config: Config): Mailer {
  if (config.mail.smtpUrl) {
    // A pool of kept-open connections, each carrying many messages: no TCP and TLS handshake and
    // no AUTH per mail, which is what held delivery to a couple of mails a second.
    const transport: Transporter = nodemailer.createTransport({
      url: config.mail.smtpUrl,
      pool: true,
      maxConnections: SMTP_POOL_CONNECTIONS,
      maxMessages: 500,
    });
    return {
      async send(mail) {
        const info = await transport.sendMail({ from: config.mail.from, ...mail });
        return { messageId: String(info.messageId) };
      },
      close: () => transport.close(),
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
