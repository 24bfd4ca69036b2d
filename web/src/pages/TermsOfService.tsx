import { Link } from 'wouter';
import { useSite } from '../api/site.ts';
import { LegalPage, MailLink, type LegalSection } from '../components/LegalPage.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { SITE_FACTS, rupeesShort } from '../../../core/domain/content/facts.ts';
import { RefundPolicyText } from '../components/RefundPolicyText.tsx';
import { TRIAL_LABEL, TRIAL_OFFERS } from '../../../core/domain/trial.ts';

/**
 * Spec §2 static page. Refund figures, trial, durations, provisioning time and support time
 * all come from core/domain, so the terms cannot drift from what the product does.
 */
export default function TermsOfService() {
  usePageTitle('Terms of Service');
  const site = useSite();
  const trialPrices = TRIAL_OFFERS.map(
    (offer) => `${rupeesShort(offer.pricePaise)} on ${offer.plan.name}`,
  ).join(', ');
  const sections: LegalSection[] = [
    {
      id: 'agreement',
      title: 'Agreement',
      body: (
        <p>
          These terms are an agreement between you and Legend Cloud. By creating an account, starting a trial
          or buying a plan you accept them and our <Link href="/privacy-policy">Privacy Policy</Link>.
        </p>
      ),
    },
    {
      id: 'account',
      title: 'Your account',
      body: (
        <ul>
          <li>
            You must be 18 or older, or use Legend Cloud with a parent&rsquo;s or guardian&rsquo;s consent.
          </li>
          <li>
            Give accurate details and keep your password and your cloud PC&rsquo;s password to yourself.
          </li>
          <li>An account is for one person. You are responsible for what happens on it.</li>
        </ul>
      ),
    },
    {
      id: 'plans',
      title: 'Plans and hours',
      body: (
        <ul>
          <li>
            A plan is a bundle of {SITE_FACTS.durationsText} of use on one cloud PC, valid for{' '}
            {SITE_FACTS.validity} from purchase whatever hours you choose.
          </li>
          <li>Hours are counted only while your cloud PC is running; starting up is never counted.</li>
          <li>
            Your cloud PC stops when your hours run out or the plan expires. Unused hours lapse at expiry and
            are not carried over or refunded.
          </li>
          <li>You can buy or extend a plan once your current plan has expired.</li>
        </ul>
      ),
    },
    {
      id: 'trial',
      title: 'Trial',
      body: (
        <p>
          The trial gives you {TRIAL_LABEL} on the machine of the plan you pick, for {trialPrices}. It is
          meant for trying the service before buying a plan, and is not refundable once your cloud PC has
          started.
        </p>
      ),
    },
    {
      id: 'payment',
      title: 'Prices and payment',
      body: (
        <p>
          Prices are in Indian rupees and include GST; your invoice shows the tax. Payments are processed by
          PayU. A plan starts only once PayU confirms the payment to us; a payment that fails or stays pending
          does not start a plan.
        </p>
      ),
    },
    {
      id: 'provisioning',
      title: 'Provisioning and availability',
      body: (
        <>
          <p>
            After payment your cloud PC is usually ready in {SITE_FACTS.timeToDesktop}. When a new machine has
            to be built for you, provisioning takes {SITE_FACTS.provisioning}. Your dashboard shows its
            status.
          </p>
          <p>
            GPU machines are sometimes briefly unavailable in the cloud. We check capacity before you pay and
            tell you if a plan cannot be served right now. We work to keep the service available but do not
            guarantee uninterrupted access; planned maintenance is announced in advance where possible.
          </p>
        </>
      ),
    },
    {
      id: 'refunds',
      title: 'Cancellation and refunds',
      body: (
        <>
          <RefundPolicyText />
          <p>
            The <Link href="/refund-policy">refund policy</Link> page says the same, with what happens to
            payments that do not complete.
          </p>
        </>
      ),
    },
    {
      id: 'use',
      title: 'Acceptable use',
      body: (
        <>
          <p>You may not use Legend Cloud to:</p>
          <ul>
            <li>break any law of India, or store or share unlawful content;</li>
            <li>mine cryptocurrency;</li>
            <li>attack, scan or break into systems you do not own, or send spam;</li>
            <li>run software you have no licence for, or share pirated content;</li>
            <li>resell or share access to your cloud PC, or get around usage limits.</li>
          </ul>
          <p>
            We may suspend a cloud PC that does any of these, and end the account without refund in serious or
            repeated cases. We will tell you why.
          </p>
        </>
      ),
    },
    {
      id: 'data',
      title: 'Your files and software',
      body: (
        <p>
          Files on your cloud PC stay there while your plan is active, including across stops and starts. When
          a plan expires the machine stops and, unless you renew, it is deleted with its disk after a grace
          period. Back up anything you want to keep. You are responsible for the licences of software you
          install.
        </p>
      ),
    },
    {
      id: 'liability',
      title: 'Liability',
      body: (
        <p>
          The service is provided with reasonable care and skill. To the extent the law allows, our total
          liability for any claim is limited to the amount you paid for the plan concerned, and we are not
          liable for indirect losses such as lost profits or data you did not back up. Nothing here limits
          rights you have under the Consumer Protection Act, 2019.
        </p>
      ),
    },
    {
      id: 'changes',
      title: 'Changes and governing law',
      body: (
        <p>
          We may update these terms; the date above shows the latest version, and we email you before
          important changes take effect. These terms are governed by the laws of India, and disputes fall
          under the jurisdiction of the courts of India.
        </p>
      ),
    },
    {
      id: 'contact',
      title: 'Contact and grievances',
      body: (
        <p>
          Write to <MailLink address={site?.contactEmail} /> or use the{' '}
          <Link href="/contact-us">contact form</Link>. We reply within {SITE_FACTS.supportReply}.
        </p>
      ),
    },
  ];
  return (
    <LegalPage
      title="Terms of Service"
      intro="The rules for using Legend Cloud: plans and hours, the trial, payments, refunds and acceptable use."
      sections={sections}
    />
  );
}
