import { escapeHtml } from '../escape.ts';
import { formatIndiaClock } from '../domain/idle.ts';
import type { Payload } from '../queue.ts';

/** The idle auto-stop's warning mail: sent once per idle episode, ten minutes before the stop. */
export function idleWarningMail(
  person: { name: string; email: string },
  stopAt: Date,
  minutes: number,
  publicUrl: string,
): Payload<'email-send'> {
  const url = `${publicUrl}/dashboard`;
  const lines = [
    `Hi ${person.name},`,
    '',
    `Nobody has used your cloud PC for a while: no one is connected and its CPU, GPU and network are quiet.`,
    `To save your hours it will stop at ${formatIndiaClock(stopAt)}, after ${minutes} idle minutes. Your files stay on its disk.`,
    'To keep it running, open your dashboard and choose "Keep it running".',
  ];
  return {
    kind: 'vm-idle-warning',
    to: person.email,
    subject: `Your cloud PC will stop at ${formatIndiaClock(stopAt)} to save your hours`,
    text: [...lines, '', `Open your dashboard: ${url}`].join('\n'),
    html: [
      ...lines.filter((line) => line !== '').map((line) => `<p>${escapeHtml(line)}</p>`),
      `<p><a href="${escapeHtml(url)}">Open your dashboard</a></p>`,
    ].join('\n'),
  };
}
