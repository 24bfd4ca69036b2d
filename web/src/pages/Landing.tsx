import { lazy, Suspense, useState } from 'react';
import { Link } from 'wouter';
import { useSite } from '../api/site.ts';
import { UNMEASURED_STAT } from '../../../core/domain/content/timeToDesktop.ts';
import { Icon, type IconName } from '../components/Icon.tsx';
import { ParticleField } from '../components/ParticleField.tsx';
import { Rotator } from '../components/Rotator.tsx';
import { useDocumentHidden, useRotation } from '../components/motion.ts';
import { usePageTitle } from '../components/pageTitle.ts';
import { TIMERS_MS, TIME_TO_DESKTOP } from '../../../core/domain/constants.ts';
import { SITE_FACTS } from '../../../core/domain/content/facts.ts';
import {
  ABOUT,
  FEATURES,
  HERO_LEAD,
  HERO_TEXTS,
  HOW_TO_PLAY,
  HOW_TO_STEPS,
  TAGLINES,
  WHAT_WE_SOLVE,
  WHY_CARDS,
  type FeatureId,
} from '../../../core/domain/content/landing.ts';
import { getPlan } from '../../../core/domain/plans.ts';
import { TRIAL_LABEL } from '../../../core/domain/trial.ts';
import { TrialLink } from '../components/TrialLink.tsx';

// Loaded on the first press of Get in Touch: most visitors never open it, so the landing page's
// first load does not carry the form and its rules.
const ContactForm = lazy(() =>
  import('../components/ContactForm.tsx').then((m) => ({ default: m.ContactForm })),
);

const FEATURE_ICONS: Record<FeatureId, IconName> = { gaming: 'gamepad', editing: 'film', developing: 'code' };
const WHY_ICONS: Record<string, IconName> = {
  fps: 'gauge',
  latency: 'signal',
  storage: 'storage',
  hours: 'clock',
  speed: 'bolt',
  support: 'headset',
};

/** Spec §2 "Landing page". */
export default function Landing() {
  usePageTitle('');
  return (
    <div className="landing">
      <Hero />
      <About />
      <Features />
      <WhatWeSolve />
      <Why />
      <HowTo />
      <GetInTouch />
    </div>
  );
}

function Hero() {
  const [paused, setPaused] = useState(false);
  const hidden = useDocumentHidden();
  const heroIndex = useRotation(HERO_TEXTS.length, TIMERS_MS.heroText, paused || hidden);
  const taglineIndex = useRotation(TAGLINES.length, TIMERS_MS.tagline, paused || hidden);
  return (
    <section className="hero" aria-labelledby="hero-title">
      <ParticleField paused={paused} />
      <div className="hero-glow" aria-hidden="true" />
      <div className="container hero-grid">
        <div className="hero-copy">
          <p className="eyebrow">
            <span className="eyebrow-dot" aria-hidden="true" />
            Windows cloud PCs with NVIDIA GPUs · made for India
          </p>
          <h1 id="hero-title" className="hero-title">
            <Rotator items={HERO_TEXTS} index={heroIndex} className="hero-text" />
          </h1>
          <p className="hero-tagline">
            <Icon name="check" size={18} />
            <Rotator items={TAGLINES} index={taglineIndex} className="tagline" />
          </p>
          <p className="hero-lead">{HERO_LEAD}</p>
          <div className="hero-actions">
            <TrialLink
              className="button primary large"
              otherwise={
                <Link href="/dashboard" className="button primary large">
                  Open your dashboard
                  <Icon name="arrow" size={18} />
                </Link>
              }
            >
              Start {TRIAL_LABEL} trial
              <Icon name="arrow" size={18} />
            </TrialLink>
            <Link href="/select-vm" className="button ghost large">
              See plans
            </Link>
          </div>
          <p className="hero-fineprint muted">
            Trial from {SITE_FACTS.trialFrom} · plans from {SITE_FACTS.plansFrom} a month · GST included
          </p>
        </div>
        <HeroVisual />
      </div>
      <button
        type="button"
        className="motion-toggle"
        aria-pressed={paused}
        onClick={() => setPaused((p) => !p)}
      >
        <Icon name={paused ? 'play' : 'pause'} size={16} />
        {paused ? 'Play animation' : 'Pause animation'}
      </button>
    </section>
  );
}

/** A picture of the product built from the catalogue, not a stock image: what a plan gives you. */
function HeroVisual() {
  const plan = getPlan('ultra-legend');
  return (
    <figure className="hero-visual">
      <div className="window">
        <div className="window-bar" aria-hidden="true">
          <span />
          <span />
          <span />
          <p>Legend Cloud · {plan.displayName}</p>
        </div>
        <div className="window-body">
          <div className="window-status">
            <span className="status-dot" aria-hidden="true" /> Running
            <span className="window-ip muted">Desktop ready in {TIME_TO_DESKTOP.label}</span>
          </div>
          <dl className="spec-list">
            <div className="spec-wide">
              <dt>GPU</dt>
              <dd>{plan.gpu}</dd>
            </div>
            <div>
              <dt>Memory</dt>
              <dd>{plan.ramGb} GB RAM</dd>
            </div>
            <div>
              <dt>Storage</dt>
              <dd>{plan.storageGb} GB SSD</dd>
            </div>
          </dl>
          <div className="usage-meter" aria-hidden="true">
            <div className="usage-meter-head">
              <span>Hours used</span>
              <span>27 of 65 h</span>
            </div>
            <div className="usage-meter-bar">
              <span />
            </div>
          </div>
        </div>
      </div>
      <figcaption className="visually-hidden">An example Legend Cloud PC on the {plan.name} plan.</figcaption>
    </figure>
  );
}

function SectionHead({
  id,
  eyebrow,
  title,
  lead,
}: {
  id: string;
  eyebrow: string;
  title: string;
  lead?: string;
}) {
  return (
    <div className="section-head">
      <p className="section-eyebrow">{eyebrow}</p>
      <h2 id={id}>{title}</h2>
      {lead && <p className="lead">{lead}</p>}
    </div>
  );
}

function About() {
  // Measured from real provisions by the server; the modest wording until it has enough.
  const timeToDesktop = useSite()?.timeToDesktop ?? UNMEASURED_STAT;
  const stats = [...ABOUT.stats.slice(0, 2), timeToDesktop, ...ABOUT.stats.slice(2)];
  return (
    <section className="section" aria-labelledby="about-title">
      <div className="container about-grid">
        <div>
          <SectionHead id="about-title" eyebrow="About" title={ABOUT.title} />
          {ABOUT.paragraphs.map((text) => (
            <p key={text} className="muted about-text">
              {text}
            </p>
          ))}
        </div>
        <ul className="stat-grid" aria-label="Legend Cloud in numbers">
          {stats.map((stat) => (
            <li
              key={stat.label}
              className="stat"
              data-stat={stat === timeToDesktop ? 'time-to-desktop' : undefined}
            >
              <strong>{stat.value}</strong>
              <span>{stat.label}</span>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

function Features() {
  return (
    <section className="section" aria-labelledby="features-title">
      <div className="container">
        <SectionHead
          id="features-title"
          eyebrow="What you can do"
          title="One cloud PC, three kinds of work"
          lead="Pick the plan that matches what you do most. You can change it every month."
        />
        <ul className="tile-grid">
          {FEATURES.map((feature) => (
            <li key={feature.id} className={`tile tile-${feature.id}`}>
              <span className="tile-icon">
                <Icon name={FEATURE_ICONS[feature.id]} size={28} />
              </span>
              <h3>{feature.title}</h3>
              <p className="muted">{feature.text}</p>
              <ul className="chip-list">
                {feature.points.map((point) => (
                  <li key={point} className="chip">
                    {point}
                  </li>
                ))}
              </ul>
              <p className="tile-plan">
                Best on <strong>{getPlan(feature.plan).name}</strong>
              </p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

function WhatWeSolve() {
  return (
    <section className="section section-alt" aria-labelledby="solve-title">
      <div className="container solve-grid">
        <SectionHead
          id="solve-title"
          eyebrow="The problem"
          title={WHAT_WE_SOLVE.title}
          lead={WHAT_WE_SOLVE.lead}
        />
        <ul className="solve-list">
          {WHAT_WE_SOLVE.items.map((item) => (
            <li key={item.problem} className="solve-item">
              <p className="solve-problem">
                <Icon name="cross" size={18} />
                {item.problem}
              </p>
              <p className="solve-solution">
                <Icon name="check" size={18} />
                {item.solution}
              </p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

function Why() {
  return (
    <section className="section" aria-labelledby="why-title">
      <div className="container">
        <SectionHead id="why-title" eyebrow="Why Legend Cloud" title="Why gamers and creators choose us" />
        <ul className="why-grid">
          {WHY_CARDS.map((card) => (
            <li key={card.id} className="why-card">
              <span className="why-icon">
                <Icon name={WHY_ICONS[card.id] ?? 'cloud'} />
              </span>
              <h3>{card.title}</h3>
              <p className="muted">{card.text}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

function HowTo() {
  return (
    <section className="section section-alt" aria-labelledby="howto-title">
      <div className="container">
        <SectionHead
          id="howto-title"
          eyebrow="How it works"
          title="From payment to desktop in six steps"
          lead={`No hardware and no installation. Most people are connected within minutes of paying.`}
        />
        <ol className="howto">
          {HOW_TO_STEPS.map((step, i) => (
            <li key={step.title} className="howto-step">
              <span className="howto-number" aria-hidden="true">
                {i + 1}
              </span>
              <h3>{step.title}</h3>
              <p className="muted">{step.text}</p>
            </li>
          ))}
        </ol>
        <div className="howto-play" data-section="how-to-play">
          <h3>{HOW_TO_PLAY.title}</h3>
          <ol>
            {HOW_TO_PLAY.steps.map((step) => (
              <li key={step}>{step}</li>
            ))}
          </ol>
          <p className="muted">{HOW_TO_PLAY.speed}</p>
          <p className="howto-links">
            <Link href={HOW_TO_PLAY.guidesLink.href}>{HOW_TO_PLAY.guidesLink.text}</Link>
            <Link href={HOW_TO_PLAY.checkLink.href}>{HOW_TO_PLAY.checkLink.text}</Link>
          </p>
        </div>
        <div className="howto-cta">
          <Link href="/select-vm" className="button primary">
            Choose your plan
          </Link>
          <TrialLink className="button ghost">Try it for {TRIAL_LABEL}</TrialLink>
        </div>
      </div>
    </section>
  );
}

function GetInTouch() {
  const site = useSite();
  const [open, setOpen] = useState(false);
  return (
    <section className="section" aria-labelledby="contact-title">
      <div className="container">
        <div className="contact-panel">
          <div className="contact-intro">
            <SectionHead
              id="contact-title"
              eyebrow="Contact"
              title="Questions? Talk to a person."
              lead={`Ask about plans, a lab for your class, or anything else. We reply within ${SITE_FACTS.supportReply}.`}
            />
            <p className="contact-address">
              <Icon name="mail" size={20} />
              <span>
                Write to us at{' '}
                {site ? (
                  <a href={`mailto:${site.contactEmail}`} data-testid="contact-email">
                    {site.contactEmail}
                  </a>
                ) : (
                  <span className="muted">…</span>
                )}
              </span>
            </p>
            <button
              type="button"
              className="button primary"
              aria-expanded={open}
              aria-controls="contact-form-panel"
              onClick={() => setOpen((o) => !o)}
            >
              Get in Touch
            </button>
          </div>
          <div id="contact-form-panel" className="contact-form-panel" hidden={!open}>
            {open && (
              <Suspense fallback={<p className="muted">Loading the form…</p>}>
                <ContactForm autoFocus />
              </Suspense>
            )}
          </div>
          {!open && (
            <ul className="contact-points">
              <li>
                <Icon name="clock" />
                <span>
                  <strong>A reply within {SITE_FACTS.supportReply}</strong>
                  <span className="muted">From a person, every day of the week.</span>
                </span>
              </li>
              <li>
                <Icon name="rupee" />
                <span>
                  <strong>Plans, payments and invoices</strong>
                  <span className="muted">Which plan fits, GST invoices, refunds.</span>
                </span>
              </li>
              <li>
                <Icon name="flask" />
                <span>
                  <strong>Labs and teams</strong>
                  <span className="muted">Identical machines for a class or a studio.</span>
                </span>
              </li>
              <li>
                <Icon name="headset" />
                <span>
                  <strong>Something not working?</strong>
                  <span className="muted">
                    <Link href="/report-problem">Report a problem</Link> and we will look into it.
                  </span>
                </span>
              </li>
            </ul>
          )}
        </div>
      </div>
    </section>
  );
}
