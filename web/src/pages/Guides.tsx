import { useEffect } from 'react';
import { Link } from 'wouter';
import { usePageTitle } from '../components/pageTitle.ts';
import {
  MoonlightDownloads,
  PortsTable,
  QualityTable,
  Troubleshooting,
} from '../components/GuideSections.tsx';
import { DCV_PORT_TEXT, portsSummary, RDP_PORT_TEXT, TROUBLESHOOTING } from '../../../core/domain/guides.ts';
import { MOONLIGHT_PIN_WINDOW_SECONDS } from '../../../core/domain/streaming.ts';
import { DCV_PORT } from '../../../core/domain/desktop.ts';

type Picture = { src: string; alt: string; width: number; height: number };

/** Pictures of our own screens (scripts/guides.ts copies them from the streaming browser test). */
const PICTURES = {
  downloads: {
    src: '/guides/moonlight-1.png',
    alt: 'The Moonlight download links on the dashboard',
    width: 406,
    height: 274,
  },
  address: {
    src: '/guides/moonlight-2.png',
    alt: 'Your PC’s name on the dashboard, with its Copy button',
    width: 406,
    height: 319,
  },
  pin: {
    src: '/guides/moonlight-3.png',
    alt: 'The pairing form with a PIN and a device name typed',
    width: 376,
    height: 237,
  },
  paired: {
    src: '/guides/moonlight-4.png',
    alt: 'A paired device listed with its Remove button',
    width: 406,
    height: 232,
  },
  health: {
    src: '/guides/health-1.png',
    alt: 'The health line with what your PC reported, each line linked to what to check',
    width: 406,
    height: 351,
  },
  dcv: { src: '/guides/dcv-1.png', alt: 'The DCV client and DCV file buttons', width: 406, height: 121 },
  rdp: {
    src: '/guides/rdp-1.png',
    alt: 'The desktop file and password file buttons',
    width: 406,
    height: 122,
  },
} satisfies Record<string, Picture>;

function Shot({ picture }: { picture: Picture }) {
  return (
    <img
      src={picture.src}
      alt={picture.alt}
      width={picture.width}
      height={picture.height}
      loading="lazy"
      decoding="async"
      className="guide-image"
    />
  );
}

/**
 * The public connection guides (prerendered): which Moonlight to get on each device and which
 * file, how to add the PC and pair it, the other ways in, the ports, the qualities and their
 * speeds, and what to check when something fails, with pictures of our own screens. The
 * dashboard's "How to connect" card shows the same sections.
 */
export default function Guides() {
  usePageTitle('Connect and play: guides');
  // Arriving from a link to one failure (the health line's), within the app: show it.
  useEffect(() => {
    const id = window.location.hash.slice(1);
    if (id) document.getElementById(id)?.scrollIntoView();
  }, []);
  return (
    <div className="container page guides-page">
      <header className="section-head">
        <p className="section-eyebrow">Guides</p>
        <h1>Connect to your cloud PC and play</h1>
        <p className="lead">
          Everything to play on your cloud PC from a phone, a TV or a computer with Moonlight, or to work on
          it with Remote Desktop, Amazon DCV or your browser: what to install, which ports your network needs,
          and what to check when something does not work.
        </p>
      </header>

      <nav className="card guides-nav" aria-label="On this page">
        <ul>
          <li>
            <a href="#moonlight-downloads">Get Moonlight</a>
          </li>
          <li>
            <a href="#pair">Add your PC and pair</a>
          </li>
          <li>
            <a href="#other-ways">Other ways in</a>
          </li>
          <li>
            <a href="#ports">Ports</a>
          </li>
          <li>
            <a href="#quality">Quality and speed</a>
          </li>
          <li>
            <a href="#when-something-fails">When something fails</a>
          </li>
        </ul>
      </nav>

      <section className="card" aria-labelledby="moonlight-downloads">
        <MoonlightDownloads headingLevel={2} />
        <p className="muted">
          Moonlight is free and open source. Your cloud PC runs Sunshine, the host Moonlight talks to: there
          is nothing to install on the PC.
        </p>
        <Shot picture={PICTURES.downloads} />
      </section>

      <section className="card" aria-labelledby="pair">
        <h2 id="pair">Add your PC and pair a device</h2>
        <ol className="guide-steps">
          <li>
            <p>
              Start your PC from your <Link href="/dashboard">dashboard</Link> and wait until it says Running.
              Its card shows your PC’s name, which stays the same every time it starts, and its IP address.
            </p>
            <Shot picture={PICTURES.address} />
          </li>
          <li>
            <p>
              In Moonlight, choose <strong>Add host</strong> (the + button) and type your PC’s name (or, if it
              has none, its IP address). Moonlight shows a 4-digit PIN.
            </p>
          </li>
          <li>
            <p>
              On your dashboard, in <strong>How to connect</strong>, type that PIN and a name for the device
              within {MOONLIGHT_PIN_WINDOW_SECONDS / 60} minutes, and press <strong>Pair device</strong>. Keep
              Moonlight open until the dashboard says it is paired.
            </p>
            <Shot picture={PICTURES.pin} />
          </li>
          <li>
            <p>
              Your device is listed as paired, and stays paired when your PC restarts. In Moonlight, open your
              PC, then Desktop or a game. Remove a device on the dashboard to stop it streaming; devices
              paired on the PC itself are listed there too.
            </p>
            <Shot picture={PICTURES.paired} />
          </li>
        </ol>
      </section>

      <section className="card" aria-labelledby="other-ways">
        <h2 id="other-ways">Other ways in</h2>
        <ul className="guide-steps">
          <li>
            <p>
              <strong>Amazon DCV’s app</strong> (Windows, macOS, Linux): install it from{' '}
              <a href="https://www.amazondcv.com/" target="_blank" rel="noopener noreferrer">
                amazondcv.com
                <span className="visually-hidden"> (opens in a new tab)</span>
              </a>
              , then press <strong>Download DCV file</strong> on your dashboard and open the file within a
              minute. It uses {DCV_PORT_TEXT}.
            </p>
            <Shot picture={PICTURES.dcv} />
          </li>
          <li>
            <p>
              <strong>Your browser</strong>: press <strong>Open in browser</strong> on your dashboard. Nothing
              to install; it uses TCP {DCV_PORT}.
            </p>
          </li>
          <li>
            <p>
              <strong>Remote Desktop</strong> (built into Windows; Microsoft’s Windows App on macOS, iPhone,
              iPad and Android): download the desktop file and the password file, open the desktop file and
              paste the password when asked. It uses {RDP_PORT_TEXT}. Fine for work, not for fast games.
            </p>
            <Shot picture={PICTURES.rdp} />
          </li>
        </ul>
      </section>

      <section className="card" aria-labelledby="ports">
        <PortsTable headingLevel={2} />
        <p className="muted">In short: Moonlight {portsSummary('Moonlight')}.</p>
      </section>

      <section className="card" aria-labelledby="quality">
        <QualityTable headingLevel={2} />
      </section>

      <section className="card" aria-labelledby="when-something-fails">
        <Troubleshooting headingLevel={2} />
        <p className="muted">
          Your dashboard’s health line says what your PC reported; each of its lines links to the failure
          above that it explains.
        </p>
        <Shot picture={PICTURES.health} />
        <p className="muted">
          Still stuck? <Link href="/report-problem">Report a problem</Link> and name which of the{' '}
          {TROUBLESHOOTING.length} cases above it is.
        </p>
      </section>
    </div>
  );
}
