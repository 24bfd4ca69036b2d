import { escapeHtml } from '../escape.ts';
import { formatLongDate } from '../domain/time.ts';
import type { Payload } from '../queue.ts';

/** The mails about a customer's cloud PC and its plan's hours and expiry. */

type Mail = Payload<'email-send'>;
type Person = { name: string; email: string };
type Plan = { plan_name: string; hours: number };

function mail(
  kind: string,
  to: string,
  subject: string,
  lines: string[],
  link?: { url: string; label: string },
): Mail {
  const text = [...lines, ...(link ? ['', `${link.label}: ${link.url}`] : [])].join('\n');
  const html = [
    ...lines.filter((line) => line !== '').map((line) => `<p>${escapeHtml(line)}</p>`),
    ...(link ? [`<p><a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a></p>`] : []),
  ].join('\n');
  return { kind, to, subject, text, html };
}

const dashboard = (publicUrl: string) => ({ url: `${publicUrl}/dashboard`, label: 'Open your dashboard' });
const renew = (publicUrl: string) => ({ url: `${publicUrl}/select-vm`, label: 'Renew your plan' });

export function hoursAlertMail(person: Person, plan: Plan, percent: 80 | 100, publicUrl: string): Mail {
  if (percent === 100) {
    return mail(
      'vm-hours-100',
      person.email,
      `You have used all ${plan.hours} hours of your ${plan.plan_name} plan`,
      [
        `Hi ${person.name},`,
        '',
        `You have used all ${plan.hours} hours of your ${plan.plan_name} plan, so your cloud PC has been stopped.`,
        'Your files stay on its disk. Renew your plan to start it again.',
      ],
      renew(publicUrl),
    );
  }
  return mail(
    'vm-hours-80',
    person.email,
    `You have used 80% of your ${plan.plan_name} plan's hours`,
    [
      `Hi ${person.name},`,
      '',
      `You have used 80% of the ${plan.hours} hours of your ${plan.plan_name} plan.`,
      'When all of them are used your cloud PC stops. Stop it from the dashboard whenever you are not using it, so your hours last.',
    ],
    dashboard(publicUrl),
  );
}

export function expiryReminderMail(
  person: Person,
  plan: Plan,
  days: 3 | 1,
  expiresAt: Date,
  publicUrl: string,
): Mail {
  const when = days === 1 ? 'tomorrow' : `in ${days} days`;
  return mail(
    `plan-expiry-${days}d`,
    person.email,
    `Your ${plan.plan_name} plan expires ${when}`,
    [
      `Hi ${person.name},`,
      '',
      `Your ${plan.plan_name} plan expires on ${formatLongDate(expiresAt)}. Your cloud PC stops then.`,
      'Renew after it expires to keep the same PC and everything on its disk.',
    ],
    dashboard(publicUrl),
  );
}

export function planExpiredMail(
  person: Person,
  plan: Plan,
  keptUntil: Date,
  publicUrl: string,
  snapshotKeepDays = 0,
): Mail {
  const after =
    snapshotKeepDays > 0
      ? `after that date the PC is deleted, and we keep a copy of its disk for ${snapshotKeepDays} more days so a renewal can bring your files back.`
      : 'after that date it is deleted.';
  return mail(
    'plan-expired',
    person.email,
    `Your ${plan.plan_name} plan has expired`,
    [
      `Hi ${person.name},`,
      '',
      `Your ${plan.plan_name} plan has expired and your cloud PC has been stopped.`,
      `We keep it, with everything on its disk, until ${formatLongDate(keptUntil)}. Renew your plan before then to keep using the same PC; ${after}`,
    ],
    renew(publicUrl),
  );
}

export function vmTerminatedMail(person: Person, publicUrl: string): Mail {
  return mail(
    'vm-terminated',
    person.email,
    'Your cloud PC has been deleted',
    [
      `Hi ${person.name},`,
      '',
      'Your plan ended and was not renewed, so your cloud PC and its disk have now been deleted.',
      'Choose a plan whenever you want a new one.',
    ],
    { url: `${publicUrl}/select-vm`, label: 'Choose a plan' },
  );
}

/**
 * The machine is deleted (EC2 confirmed it), its disk kept as a snapshot until `keptUntil`. Says
 * "not renewed" only when nothing was.
 */
export function diskKeptMail(
  person: Person,
  snapshotAt: Date,
  keptUntil: Date,
  publicUrl: string,
  renewed = false,
): Mail {
  return mail(
    'disk-kept',
    person.email,
    `Your cloud PC has been deleted; your files are kept until ${formatLongDate(keptUntil)}`,
    [
      `Hi ${person.name},`,
      '',
      `${renewed ? 'Your old cloud PC' : 'Your plan ended and was not renewed, so your cloud PC'} has been deleted. Before deleting it we saved a copy of its disk on ${formatLongDate(snapshotAt)}.`,
      `We keep that copy until ${formatLongDate(keptUntil)}. Buy any plan before then and your new PC starts with all your files, games and projects back.`,
      `The copy will be deleted on ${formatLongDate(keptUntil)}.`,
    ],
    renew(publicUrl),
  );
}

/** The old machine is deleted; its files went to the machine of the plan the customer bought since. */
export function diskRestoredMail(person: Person, publicUrl: string): Mail {
  return mail(
    'disk-restored',
    person.email,
    'Your old cloud PC has been deleted; your files are on your new one',
    [
      `Hi ${person.name},`,
      '',
      'Your old cloud PC has now been deleted. Nothing is lost: your new PC is made from the copy of its disk we saved, so your files, games and projects are on it.',
    ],
    dashboard(publicUrl),
  );
}

/**
 * The customer's machine was lost at AWS (its instance is gone) and a new one is being set up for
 * the same plan: with the files from the copy of the disk saved on `restoredFrom`, or without
 * them when there is no copy. Plainly either way.
 */
export function vmReplacedMail(person: Person, restoredFrom: Date | null, publicUrl: string): Mail {
  return mail(
    'vm-replaced',
    person.email,
    restoredFrom
      ? 'Your cloud PC is being replaced; your files come back'
      : 'Your cloud PC is being replaced; your files could not be saved',
    [
      `Hi ${person.name},`,
      '',
      'The machine your cloud PC ran on at Amazon stopped existing, so we are setting up a new one for your plan now. It is ready in a few minutes; the hours it takes are not counted.',
      restoredFrom
        ? `Your files come back: the new PC starts from the copy of your disk saved on ${formatLongDate(restoredFrom)}. Anything you saved after that date is not on it.`
        : 'Your files did not come back: there was no saved copy of its disk, so the new PC starts as a fresh Windows. We are sorry; our team has been told.',
    ],
    dashboard(publicUrl),
  );
}

/** The kept copy of the disk reached the end of its window and was deleted. */
export function diskDeletedMail(person: Person, deletedOn: Date, publicUrl: string): Mail {
  return mail(
    'disk-deleted',
    person.email,
    'The saved copy of your cloud PC has been deleted',
    [
      `Hi ${person.name},`,
      '',
      `The copy of your cloud PC's disk that we kept after your plan ended was deleted on ${formatLongDate(deletedOn)}, as we told you it would be.`,
      'Choose a plan whenever you want a new PC.',
    ],
    { url: `${publicUrl}/select-vm`, label: 'Choose a plan' },
  );
}

/** Provisioning is late, and why (core/domain/provisionDelay.ts words the cause). */
export function provisionDelayedMail(person: Person, publicUrl: string, why: string): Mail {
  return mail(
    'vm-provision-delayed',
    person.email,
    'Your cloud PC is taking longer than usual',
    [`Hi ${person.name},`, '', why],
    dashboard(publicUrl),
  );
}

export function provisionReadyLateMail(person: Person, publicUrl: string): Mail {
  return mail(
    'vm-provision-ready',
    person.email,
    'Your cloud PC is ready',
    [
      `Hi ${person.name},`,
      '',
      'Sorry for the wait: your cloud PC is ready. Download the desktop file and the password file from your dashboard to connect.',
    ],
    dashboard(publicUrl),
  );
}

export function provisionFailedMail(person: Person, supportEmail: string, publicUrl: string): Mail {
  return mail(
    'vm-provision-failed',
    person.email,
    'We could not set up your cloud PC',
    [
      `Hi ${person.name},`,
      '',
      'We could not set up your cloud PC. Our team has been alerted and will contact you; your hours have not started.',
      `You can also write to ${supportEmail}.`,
    ],
    dashboard(publicUrl),
  );
}
