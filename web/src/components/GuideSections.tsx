import { Link } from 'wouter';
import { GAMING, STREAM_MODES } from '../../../core/domain/gaming.ts';
import {
  CUSTOMER_PORTS,
  HEALTH_FIELDS,
  healthFieldHref,
  MOONLIGHT_DOWNLOADS,
  TROUBLESHOOTING,
} from '../../../core/domain/guides.ts';
import './guides.css';

/**
 * The guides' sections, the same words on the public guides page and in the dashboard's "How to
 * connect" card (core/domain/guides.ts): which Moonlight to get, the ports, the qualities and
 * the speed each needs, and what to check when something fails.
 */

/** Which Moonlight to get on each device, the file, and the official page. */
export function MoonlightDownloads({ headingLevel = 3 }: { headingLevel?: 2 | 3 }) {
  const Heading = `h${headingLevel}` as const;
  return (
    <div className="guide-section" data-guide="downloads">
      <Heading id="moonlight-downloads">Get Moonlight for your device</Heading>
      <div className="guide-table-wrap">
        <table className="guide-table guide-table-stack">
          <caption className="visually-hidden">Moonlight for each kind of device</caption>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">What to get</th>
              <th scope="col">Official page</th>
            </tr>
          </thead>
          <tbody>
            {MOONLIGHT_DOWNLOADS.map((download) => (
              <tr key={download.os} data-os={download.os}>
                <th scope="row">{download.os}</th>
                <td data-label="What to get">{download.file}</td>
                <td data-label="Official page">
                  <a href={download.url} target="_blank" rel="noopener noreferrer">
                    {download.linkText}
                    <span className="visually-hidden"> for {download.os} (opens in a new tab)</span>
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** What the customer's network must let out, by app. */
export function PortsTable({ headingLevel = 3 }: { headingLevel?: 2 | 3 }) {
  const Heading = `h${headingLevel}` as const;
  return (
    <div className="guide-section" data-guide="ports">
      <Heading id="ports">Ports your network must allow</Heading>
      <p className="muted">
        Nothing needs to be opened towards you: these are the ports your device connects out to. Home networks
        allow them; school, office and some mobile networks block the UDP ones.
      </p>
      <div className="guide-table-wrap">
        <table className="guide-table">
          <caption className="visually-hidden">Ports each way of connecting uses</caption>
          <thead>
            <tr>
              <th scope="col">App</th>
              <th scope="col">Ports, and what for</th>
            </tr>
          </thead>
          <tbody>
            {CUSTOMER_PORTS.map((rule) => (
              <tr
                key={`${rule.app}-${rule.protocol}-${rule.ports}`}
                data-port={`${rule.protocol} ${rule.ports}`}
              >
                <th scope="row">{rule.app}</th>
                <td>
                  <span className="guide-port">
                    {rule.protocol} {rule.ports}
                  </span>{' '}
                  <span className="muted">({rule.use})</span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** The qualities Moonlight streams at, and the download speed each needs. */
export function QualityTable({ headingLevel = 3 }: { headingLevel?: 2 | 3 }) {
  const Heading = `h${headingLevel}` as const;
  return (
    <div className="guide-section" data-guide="quality">
      <Heading id="quality">Quality and the speed it needs</Heading>
      <p className="muted">
        Games stream at up to {GAMING.maxFps} fps, or up to {GAMING.maxResolution} at 60 fps. In Moonlight’s
        settings, choose a quality your line carries: the{' '}
        <Link href="/connection-check">connection check</Link> measures yours. The {GAMING.planName} plan (
        {GAMING.gpu}) is the one for demanding games; {GAMING.lightPlanName} suits lighter ones.
      </p>
      <div className="guide-table-wrap">
        <table className="guide-table">
          <caption className="visually-hidden">Moonlight qualities and the download speed each needs</caption>
          <thead>
            <tr>
              <th scope="col">Quality</th>
              <th scope="col">Download speed needed</th>
            </tr>
          </thead>
          <tbody>
            {STREAM_MODES.map((mode) => (
              <tr key={mode.label}>
                <th scope="row">{mode.label}</th>
                <td>{mode.mbps} Mbps</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * When something fails: each failure with what to check, in order, and a link to the health
 * line's field that shows it (`onDashboard`: the field is on this page, so the link stays here).
 */
export function Troubleshooting({ headingLevel = 3 }: { headingLevel?: 2 | 3 }) {
  const Heading = `h${headingLevel}` as const;
  const Entry = `h${headingLevel + 1}` as 'h3' | 'h4';
  return (
    <div className="guide-section" data-guide="troubleshooting">
      <Heading id="when-something-fails">When something fails</Heading>
      <p className="muted">Check these in order: the first one that fits is usually the cause.</p>
      <ul className="trouble-list">
        {TROUBLESHOOTING.map((entry) => (
          <li key={entry.key} id={entry.anchor} className="trouble-entry" data-failure={entry.anchor}>
            <Entry>{entry.title}</Entry>
            <ol>
              {entry.checks.map((check) => (
                <li key={check}>{check}</li>
              ))}
            </ol>
            <p className="trouble-field">
              <a href={healthFieldHref(entry.field)} data-health-field={HEALTH_FIELDS[entry.field].id}>
                See “{HEALTH_FIELDS[entry.field].label}” on your dashboard’s health line
              </a>
            </p>
          </li>
        ))}
      </ul>
    </div>
  );
}
