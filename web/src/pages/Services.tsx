import { useRef, useState, type KeyboardEvent } from 'react';
import { Link } from 'wouter';
import { Icon, type IconName } from '../components/Icon.tsx';
import { Tabs } from '../components/Tabs.tsx';
import { usePageTitle } from '../components/pageTitle.ts';
import { SITE_FACTS, rupeesShort } from '../../../core/domain/content/facts.ts';
import { FAQ, USE_CASES, type UseCaseId } from '../../../core/domain/content/services.ts';
import { CARD_PLANS, DURATIONS, formatRupees, getPlan, type Plan } from '../../../core/domain/plans.ts';
import { TRIAL_LABEL } from '../../../core/domain/trial.ts';
import { TrialLink } from '../components/TrialLink.tsx';

const USE_CASE_ICONS: Record<UseCaseId, IconName> = {
  development: 'code',
  gaming: 'gamepad',
  editing: 'film',
  ai: 'sparkles',
  data: 'chart',
  office: 'briefcase',
  student: 'cap',
  lab: 'flask',
  cyber: 'lock',
  game: 'cube',
};

const hoursText = (hours: readonly number[]) => `${hours.join(' / ')} hours`;

/** Spec §2 "Services page". */
export default function Services() {
  usePageTitle('Services');
  return (
    <div className="services">
      <section className="page-hero" aria-labelledby="services-title">
        <div className="container">
          <p className="section-eyebrow">Services</p>
          <h1 id="services-title">Cloud PCs for gaming, editing, development and AI</h1>
          <p className="lead">
            Three Windows machines with NVIDIA GPUs, sold as monthly bundles of {SITE_FACTS.durationsText}.
            Pick the power you need, pay in rupees, and connect in {SITE_FACTS.timeToDesktop}.
          </p>
          <div className="hero-actions">
            <Link href="/select-vm" className="button primary large">
              See plans
            </Link>
            <TrialLink className="button ghost large">Try it for {TRIAL_LABEL}</TrialLink>
          </div>
        </div>
      </section>
      <Plans />
      <Highlights />
      <UseCasePicker />
      <Faq />
    </div>
  );
}

function Plans() {
  return (
    <section className="section" aria-labelledby="plans-title">
      <div className="container">
        <div className="section-head">
          <p className="section-eyebrow">Plans</p>
          <h2 id="plans-title">Choose your machine</h2>
          <p className="lead">
            Every plan is valid for {SITE_FACTS.validity} and includes its storage. Prices include GST. Turn a
            card to see every price.
          </p>
        </div>
        <ul className="plan-grid">
          {CARD_PLANS.map((plan) => (
            <PlanCard key={plan.id} plan={plan} />
          ))}
        </ul>
      </div>
    </section>
  );
}

function PlanCard({ plan }: { plan: Plan }) {
  const [flipped, setFlipped] = useState(false);
  const frontButton = useRef<HTMLButtonElement>(null);
  const backButton = useRef<HTMLButtonElement>(null);
  const headingId = `plan-${plan.id}`;

  // The face that was clicked becomes inert, so focus follows to the other face's button.
  function flip(toBack: boolean) {
    setFlipped(toBack);
    requestAnimationFrame(() => (toBack ? backButton : frontButton).current?.focus());
  }

  return (
    <li className={`plan-card plan-${plan.id}`} aria-labelledby={headingId}>
      <div className={flipped ? 'flip is-flipped' : 'flip'}>
        <div className="flip-face flip-front" inert={flipped}>
          <h3 id={headingId} className="plan-name">
            {plan.displayName}
          </h3>
          <p className="plan-price">
            <span className="muted">from</span> <strong>{rupeesShort(plan.pricesPaise[DURATIONS[0]])}</strong>
            <span className="muted"> / month</span>
          </p>
          <p className="plan-description muted">{plan.description}</p>
          <ul className="plan-specs">
            <li>
              <Icon name="gauge" size={18} /> {plan.gpu}
            </li>
            <li>
              <Icon name="monitor" size={18} /> {plan.ramGb} GB RAM
            </li>
            <li>
              <Icon name="storage" size={18} /> {plan.storageGb} GB storage per month
            </li>
            <li>
              <Icon name="clock" size={18} /> {DURATIONS[0]} to {DURATIONS.at(-1)} hours
            </li>
          </ul>
          <button ref={frontButton} type="button" className="flip-toggle" onClick={() => flip(true)}>
            See all prices <Icon name="arrow" size={16} />
          </button>
        </div>
        <div className="flip-face flip-back" inert={!flipped}>
          <p className="plan-name" aria-hidden="true">
            {plan.displayName}
          </p>
          <p className="price-caption">
            Price per month for the hours you choose. Valid {SITE_FACTS.validity}, GST included.
          </p>
          <table className="price-table">
            <caption className="visually-hidden">Monthly prices of {plan.name}</caption>
            <thead className="visually-hidden">
              <tr>
                <th scope="col">Hours</th>
                <th scope="col">Price</th>
              </tr>
            </thead>
            <tbody>
              {DURATIONS.map((hours) => (
                <tr key={hours}>
                  <th scope="row">{hours} hours</th>
                  <td>{formatRupees(plan.pricesPaise[hours])}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <button ref={backButton} type="button" className="flip-toggle" onClick={() => flip(false)}>
            <Icon name="back" size={16} /> Back to overview
          </button>
        </div>
      </div>
      <Link href="/select-vm" className="button primary plan-choose">
        Choose {plan.name}
      </Link>
    </li>
  );
}

function Highlights() {
  return (
    <section className="section section-alt" aria-labelledby="highlights-title">
      <div className="container">
        <div className="section-head">
          <p className="section-eyebrow">Popular uses</p>
          <h2 id="highlights-title">What people run on Legend Cloud</h2>
        </div>
        <ul className="highlight-grid">
          {USE_CASES.filter((useCase) => useCase.highlight).map((useCase) => (
            <li key={useCase.id} className="highlight">
              <span className="why-icon">
                <Icon name={USE_CASE_ICONS[useCase.id]} />
              </span>
              <h3>{useCase.title}</h3>
              <p className="muted">{useCase.description}</p>
              <p className="highlight-plan">
                <strong>{getPlan(useCase.recommendedPlan).name}</strong> · {hoursText(useCase.suggestedHours)}
              </p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

/**
 * The radial use-case picker: ten options on a ring, one selected. It is a radio group:
 * one tab stop, arrow keys move the choice (and the details follow), Home/End jump.
 */
function UseCasePicker() {
  const [selected, setSelected] = useState(0);
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const useCase = USE_CASES[selected] ?? USE_CASES[0]!;
  const plan = getPlan(useCase.recommendedPlan);

  function choose(index: number) {
    const next = (index + USE_CASES.length) % USE_CASES.length;
    setSelected(next);
    refs.current[next]?.focus();
  }

  function onKeyDown(event: KeyboardEvent) {
    const moves: Record<string, number> = {
      ArrowRight: selected + 1,
      ArrowDown: selected + 1,
      ArrowLeft: selected - 1,
      ArrowUp: selected - 1,
      Home: 0,
      End: USE_CASES.length - 1,
    };
    const next = moves[event.key];
    if (next !== undefined) {
      event.preventDefault();
      choose(next);
    }
  }

  return (
    <section className="section" aria-labelledby="picker-title">
      <div className="container">
        <div className="section-head">
          <p className="section-eyebrow">Find your plan</p>
          <h2 id="picker-title">What will you use it for?</h2>
          <p className="lead">Pick a use case to see the plan and hours we suggest.</p>
        </div>
        <div className="picker">
          <div className="radial" role="radiogroup" aria-label="Use cases" onKeyDown={onKeyDown}>
            <div className="radial-hub" aria-hidden="true">
              <Icon name={USE_CASE_ICONS[useCase.id]} size={34} />
              <span>{useCase.shortTitle}</span>
            </div>
            {USE_CASES.map((option, i) => (
              <button
                key={option.id}
                ref={(el) => {
                  refs.current[i] = el;
                }}
                type="button"
                role="radio"
                aria-checked={i === selected}
                aria-label={option.title}
                tabIndex={i === selected ? 0 : -1}
                className="radial-option"
                onClick={() => choose(i)}
              >
                <Icon name={USE_CASE_ICONS[option.id]} size={22} />
                <span className="radial-label" aria-hidden="true">
                  {option.shortTitle}
                </span>
              </button>
            ))}
          </div>
          <div className="picker-detail" aria-live="polite">
            <h3>{useCase.title}</h3>
            <p className="muted">{useCase.description}</p>
            <dl className="picker-facts">
              <div>
                <dt>Recommended plan</dt>
                <dd>{plan.displayName}</dd>
              </div>
              <div>
                <dt>Suggested hours</dt>
                <dd>{hoursText(useCase.suggestedHours)} a month</dd>
              </div>
              <div>
                <dt>Power</dt>
                <dd>{useCase.powerNote}</dd>
              </div>
            </dl>
            <Link href="/select-vm" className="button primary">
              Choose {plan.name}
            </Link>
          </div>
        </div>
      </div>
    </section>
  );
}

function Faq() {
  const tabs = FAQ.map((category) => ({
    id: category.id,
    label: category.title,
    content: (
      <div className="faq-list">
        {category.items.map((item) => (
          <details key={item.question} className="faq-item">
            <summary>{item.question}</summary>
            <p className="muted">{item.answer}</p>
            {item.link && (
              <p className="faq-link">
                <Link href={item.link.href}>{item.link.text}</Link>
              </p>
            )}
          </details>
        ))}
      </div>
    ),
  }));
  return (
    <section className="section section-alt" aria-labelledby="faq-title">
      <div className="container faq">
        <div className="section-head">
          <p className="section-eyebrow">FAQ</p>
          <h2 id="faq-title">Frequently asked questions</h2>
        </div>
        <Tabs tabs={tabs} label="FAQ topics" />
      </div>
    </section>
  );
}
