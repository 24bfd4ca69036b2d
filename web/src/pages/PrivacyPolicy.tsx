import { Link } from 'wouter';
import { useSite } from '../api/site.ts';
import { LegalPage, MailLink, type LegalSection } from '../components/LegalPage.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { SITE_FACTS } from '../../../core/domain/content/facts.ts';

/** Spec §2 static page. Written for India's Digital Personal Data Protection Act, 2023. */
export default function PrivacyPolicy() {
  usePageTitle('Privacy Policy');
  const site = useSite();
  const sections: LegalSection[] = [
    {
      id: 'who',
      title: 'Who we are',
      body: (
        <p>
          Legend Cloud rents Windows cloud PCs to people in India. For the personal data described here we are
          the data fiduciary under the Digital Personal Data Protection Act, 2023 (DPDP Act). Questions about
          this policy go to <MailLink address={site?.contactEmail} />.
        </p>
      ),
    },
    {
      id: 'collect',
      title: 'What we collect',
      body: (
        <ul>
          <li>
            <strong>Account:</strong> your name, email address, mobile number and a one-way hash of your
            password (never the password itself).
          </li>
          <li>
            <strong>Plans and payments:</strong> the plan, hours and price you chose, and the transaction
            reference and status PayU reports. Card, UPI and bank details are entered on PayU&rsquo;s page and
            never reach us.
          </li>
          <li>
            <strong>Your cloud PC:</strong> when it starts and stops, the hours used, its public IP address
            and its encrypted Windows password. We do not look at the files on your cloud PC.
          </li>
          <li>
            <strong>Messages:</strong> what you send through the contact form or a problem report, with the
            phone number and email you give.
          </li>
          <li>
            <strong>Blog emails:</strong> your email address and when you confirmed or unsubscribed.
          </li>
          <li>
            <strong>Technical data:</strong> your IP address and browser details in our logs, used for
            security and to stop abuse.
          </li>
        </ul>
      ),
    },
    {
      id: 'use',
      title: 'Why we use it',
      body: (
        <>
          <p>We use your data only to:</p>
          <ul>
            <li>create your account, run your cloud PC and count your hours;</li>
            <li>take payments and issue GST invoices;</li>
            <li>answer your messages and fix problems you report;</li>
            <li>send emails about your account, plan, hours and payments;</li>
            <li>keep the service secure and prevent fraud and abuse;</li>
            <li>send blog posts, only after you confirm your subscription.</li>
          </ul>
          <p>We do not sell your data and we do not use it for advertising.</p>
        </>
      ),
    },
    {
      id: 'cookies',
      title: 'Cookies and browser storage',
      body: (
        <p>
          We use only essential cookies: they keep you logged in and protect sign-in, so there is no cookie
          banner. The site also keeps a few values (such as your name and plan) in your browser&rsquo;s
          storage to show them quickly; they are cleared when you log out. We use no tracking or advertising
          cookies.
        </p>
      ),
    },
    {
      id: 'share',
      title: 'Who we share it with',
      body: (
        <ul>
          <li>
            <strong>PayU</strong>, our payment gateway, to process your payments and refunds.
          </li>
          <li>
            <strong>Our cloud infrastructure provider</strong>, whose data centres host this website and your
            cloud PC.
          </li>
          <li>
            <strong>Our email delivery provider</strong>, to send the emails described above.
          </li>
          <li>Government authorities, only when Indian law requires us to.</li>
        </ul>
      ),
    },
    {
      id: 'keep',
      title: 'How long we keep it',
      body: (
        <ul>
          <li>Account data: while your account exists. Deleting your account removes it.</li>
          <li>
            Invoices and payment records: for as long as Indian tax law requires, even after account deletion.
          </li>
          <li>Your cloud PC and its disk: deleted after your plan expires and its grace period ends.</li>
          <li>Messages and problem reports: as long as we need them to help you and improve the service.</li>
          <li>Blog subscription: while you are subscribed, then only a record that you unsubscribed.</li>
        </ul>
      ),
    },
    {
      id: 'rights',
      title: 'Your rights',
      body: (
        <>
          <p>Under the DPDP Act you can:</p>
          <ul>
            <li>ask what personal data we hold about you and how we use it;</li>
            <li>have it corrected, completed or updated;</li>
            <li>have it erased, for example by deleting your account from your profile menu;</li>
            <li>withdraw consent, such as unsubscribing from blog emails with the link in every email;</li>
            <li>nominate someone to exercise these rights for you;</li>
            <li>raise a grievance with us and, if unresolved, with the Data Protection Board of India.</li>
          </ul>
          <p>
            Write to <MailLink address={site?.contactEmail} />. We reply within {SITE_FACTS.supportReply}.
          </p>
        </>
      ),
    },
    {
      id: 'security',
      title: 'How we protect it',
      body: (
        <p>
          Everything travels over HTTPS. Passwords are stored as strong one-way hashes, and secrets such as
          your cloud PC&rsquo;s password are encrypted at rest. Access to production systems is limited to the
          people who run them.
        </p>
      ),
    },
    {
      id: 'children',
      title: 'Children',
      body: (
        <p>
          Legend Cloud is for people aged 18 and over. Anyone younger may use it only with the verifiable
          consent of a parent or lawful guardian, as the DPDP Act requires.
        </p>
      ),
    },
    {
      id: 'changes',
      title: 'Changes to this policy',
      body: (
        <p>
          If we change this policy we update the date above and, for important changes, email you first. See
          also our <Link href="/terms-of-service">Terms of Service</Link>.
        </p>
      ),
    },
  ];
  return (
    <LegalPage
      title="Privacy Policy"
      intro="What personal data Legend Cloud collects, why, who we share it with, and the rights you have over it."
      sections={sections}
    />
  );
}
