import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { page, escape } from './html.ts';

/**
 * A mail catcher. The app's mailer posts nodemailer's JSON rendering of each message here
 * (`POST /sandbox/mail`), as it would hand it to a mail API. People read it at
 * `GET /sandbox/mail`; tests read `GET /sandbox/mail?to=EMAIL` (JSON, newest first).
 */

export type CaughtMail = { to: string; subject: string; text: string; html: string; sentAt: string };

const Address = z.union([z.string(), z.object({ address: z.string(), name: z.string().optional() })]);
const Incoming = z.object({
  to: z.union([Address, z.array(Address)]),
  subject: z.string().default(''),
  text: z.string().default(''),
  html: z.string().default(''),
});

const KEEP = 2000;

function addresses(value: z.infer<typeof Incoming>['to']): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.map((a) => (typeof a === 'string' ? a : a.address).toLowerCase());
}

export function mailCatcher(): Router {
  const inbox: CaughtMail[] = [];
  const router = new Router();

  router.post('/mail', koaBody({ jsonLimit: '2mb' }), (ctx) => {
    const parsed = Incoming.safeParse(ctx.request.body);
    if (!parsed.success) {
      ctx.status = 400;
      ctx.body = { message: 'not a mail message' };
      return;
    }
    const sentAt = new Date().toISOString();
    for (const to of addresses(parsed.data.to)) {
      inbox.unshift({
        to,
        subject: parsed.data.subject,
        text: parsed.data.text,
        html: parsed.data.html,
        sentAt,
      });
    }
    inbox.splice(KEEP);
    ctx.status = 202;
    ctx.body = { accepted: true };
  });

  router.get('/mail', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    const to = typeof ctx.query.to === 'string' ? ctx.query.to.trim().toLowerCase() : undefined;
    if (to !== undefined) {
      ctx.body = inbox.filter((m) => m.to === to);
      return;
    }
    ctx.type = 'html';
    ctx.body = page(
      'Sandbox inbox',
      inbox.length === 0
        ? '<p>No mail yet. Everything the app sends while in sandbox mode lands here.</p>'
        : inbox
            .map(
              (m) => `<article class="mail">
  <header><strong>${escape(m.subject)}</strong><br>to ${escape(m.to)} · <time>${escape(m.sentAt)}</time></header>
  <pre>${escape(m.text)}</pre>
</article>`,
            )
            .join('\n'),
    );
  });

  return router;
}
