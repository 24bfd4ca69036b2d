import { Link } from 'wouter';
import { useSite } from '../api/site.ts';
import { ContactForm } from '../components/ContactForm.tsx';
import { Icon } from '../components/Icon.tsx';
import { MailLink } from '../components/LegalPage.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { SITE_FACTS } from '../../../core/domain/content/facts.ts';

/** Spec §2 static page: how to reach us, and the contact form. */
export default function ContactUs() {
  usePageTitle('Contact Us');
  const site = useSite();
  return (
    <div className="container page contact-page">
      <header className="section-head">
        <p className="section-eyebrow">Contact</p>
        <h1>Contact Us</h1>
        <p className="lead">
          Questions about plans, payments, a lab for your class or anything else: a person replies within{' '}
          {SITE_FACTS.supportReply}.
        </p>
      </header>
      <div className="contact-layout">
        <section className="card contact-form-card" aria-labelledby="contact-form-title">
          <h2 id="contact-form-title">Send us a message</h2>
          <ContactForm />
        </section>
        <aside className="contact-cards" aria-label="Other ways to reach us">
          <div className="card contact-card">
            <Icon name="mail" />
            <h2>Email</h2>
            <p>
              <MailLink address={site?.contactEmail} />
            </p>
          </div>
          <div className="card contact-card">
            <Icon name="headset" />
            <h2>Support</h2>
            <p>
              <MailLink address={site?.supportEmail} />
            </p>
            <p className="muted">
              Something broken? <Link href="/report-problem">Report a problem</Link>.
            </p>
          </div>
          <div className="card contact-card">
            <Icon name="clock" />
            <h2>Reply time</h2>
            <p className="muted">Within {SITE_FACTS.supportReply}, every day.</p>
          </div>
        </aside>
      </div>
    </div>
  );
}
