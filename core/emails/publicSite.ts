import type { Payload } from '../queue.ts';
import type { FeedbackMessage } from '../db/feedback.ts';
import { BLOG_POSTS } from '../domain/content/blog.ts';
import { NEWSLETTER } from '../domain/publicSite.ts';
import { escapeHtml } from '../escape.ts';

/**
 * The public site's mails: the contact/feedback message to support, and the blog
 * subscription's confirmation, welcome and already-subscribed notes. Every subscription mail
 * ends with its unsubscribe link.
 */

type Mail = Payload<'email-send'>;

const link = (href: string, text: string) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`;
const paragraph = (text: string) => `<p>${escapeHtml(text)}</p>`;

export function feedbackMail(message: FeedbackMessage, supportEmail: string): Mail {
  const name = `${message.first_name} ${message.last_name}`;
  const lines = [
    `From: ${name} <${message.email}>`,
    `Field: ${message.field}`,
    `Contact number: ${message.contact_number}`,
    `Message id: ${message.id}`,
    '',
    message.message,
  ];
  return {
    kind: 'feedback',
    to: supportEmail,
    // Support answers with Reply: it goes to the person, not to our no-reply sender.
    replyTo: message.email,
    subject: `Contact form: ${name} (${message.field})`.slice(0, 200),
    text: lines.join('\n'),
    html: lines.map((line) => (line ? paragraph(line) : '')).join('\n'),
  };
}

type SubscriptionLinks = { to: string; unsubscribeUrl: string };

function footer(unsubscribeUrl: string): { text: string[]; html: string } {
  const note =
    'You get this email because this address was entered in the subscribe form on the Legend Cloud blog.';
  return {
    text: ['', '--', note, `Unsubscribe: ${unsubscribeUrl}`],
    html: `<hr>\n<p><small>${escapeHtml(note)} ${link(unsubscribeUrl, 'Unsubscribe')}</small></p>`,
  };
}

export function subscribeConfirmMail(input: SubscriptionLinks & { confirmUrl: string }): Mail {
  const intro = 'Please confirm that you want Legend Cloud blog posts by email.';
  const ignore = `If you did not ask for this, ignore this email: you will not be subscribed. The link works for ${NEWSLETTER.confirmLinkDays} days.`;
  const end = footer(input.unsubscribeUrl);
  return {
    kind: 'blog-subscribe-confirm',
    to: input.to,
    subject: 'Confirm your Legend Cloud blog subscription',
    text: [intro, '', `Confirm your subscription: ${input.confirmUrl}`, '', ignore, ...end.text].join('\n'),
    html: [
      paragraph(intro),
      `<p>${link(input.confirmUrl, 'Confirm your subscription')}</p>`,
      paragraph(ignore),
      end.html,
    ].join('\n'),
  };
}

export function subscribeWelcomeMail(input: SubscriptionLinks & { publicUrl: string }): Mail {
  const intro = 'You are subscribed to the Legend Cloud blog. Here is what to read first:';
  const posts = BLOG_POSTS.map((post) => ({
    title: post.title,
    url: `${input.publicUrl}/BlogPostPage/${post.id}`,
  }));
  const end = footer(input.unsubscribeUrl);
  return {
    kind: 'blog-subscribe-welcome',
    to: input.to,
    subject: 'Welcome to the Legend Cloud blog',
    text: [intro, '', ...posts.map((post) => `- ${post.title}: ${post.url}`), ...end.text].join('\n'),
    html: [
      paragraph(intro),
      `<ul>\n${posts.map((post) => `<li>${link(post.url, post.title)}</li>`).join('\n')}\n</ul>`,
      end.html,
    ].join('\n'),
  };
}

export function alreadySubscribedMail(input: SubscriptionLinks): Mail {
  const intro =
    'Someone, probably you, asked to subscribe this address to the Legend Cloud blog. It is already subscribed, so nothing has changed.';
  const end = footer(input.unsubscribeUrl);
  return {
    kind: 'blog-subscribe-already',
    to: input.to,
    subject: 'You are already subscribed to the Legend Cloud blog',
    text: [intro, ...end.text].join('\n'),
    html: [paragraph(intro), end.html].join('\n'),
  };
}
