import type { ReactNode } from 'react';
import { LEGAL_UPDATED_ON } from '../../../core/domain/content/legal.ts';
import { formatLongDate } from '../../../core/domain/time.ts';

export type LegalSection = { id: string; title: string; body: ReactNode };

/** The frame of the privacy policy and the terms: title, date, a table of contents, sections. */
export function LegalPage({
  title,
  intro,
  sections,
}: {
  title: string;
  intro: ReactNode;
  sections: LegalSection[];
}) {
  return (
    <div className="container page legal">
      <header className="legal-head">
        <h1>{title}</h1>
        <p className="muted">Last updated {formatLongDate(`${LEGAL_UPDATED_ON}T00:00:00+05:30`)}</p>
        <div className="lead">{intro}</div>
      </header>
      <div className="legal-layout">
        <nav className="legal-toc" aria-label="On this page">
          <p className="legal-toc-title">On this page</p>
          <ol>
            {sections.map((section) => (
              <li key={section.id}>
                <a href={`#${section.id}`}>{section.title}</a>
              </li>
            ))}
          </ol>
        </nav>
        <div className="legal-body">
          {sections.map((section, i) => (
            <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`}>
              <h2 id={`${section.id}-title`}>
                {i + 1}. {section.title}
              </h2>
              {section.body}
            </section>
          ))}
        </div>
      </div>
    </div>
  );
}

/** The configured contact address as a link, or a placeholder while it loads. */
export function MailLink({ address }: { address: string | undefined }) {
  return address ? (
    <a href={`mailto:${address}`}>{address}</a>
  ) : (
    <span className="muted">our contact address</span>
  );
}
