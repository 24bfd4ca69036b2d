/**
 * The connection guides, once: which Moonlight to get on each device (and which file), the ports a
 * customer's network must let out, and what to check, in order, when something fails. The public
 * page (/guides, prerendered) and the dashboard's "How to connect" card render these same words;
 * the health line links each of its fields to the failure it explains, and each failure links
 * back to that field.
 *
 * Sources (verified on paper, reading the projects' own files): moonlight-qt's release scripts
 * name its assets `MoonlightSetup-<version>.exe` (scripts/generate-bundle.bat),
 * `MoonlightPortable-x64-<version>.zip` (scripts/build-arch.bat), `Moonlight-<version>.dmg`
 * (scripts/generate-dmg.sh) and an AppImage (scripts/build-appimage.sh, linuxdeploy:
 * `Moonlight-<version>-x86_64.AppImage`); its README links Flathub `com.moonlight_stream.Moonlight`;
 * Moonlight for Android is `com.limelight` on Google Play (Android TV included) and for iOS and
 * iPadOS App Store id1000551566. The ports are Sunshine's defaults (its base port 47989 and the
 * offsets it adds), Amazon DCV's 8443 and Remote Desktop's 3389: STREAMING_INGRESS.
 */
import { DCV_PORT } from './desktop.ts';
import { GAMING } from './gaming.ts';
import { RDP_DEFAULT_PORT } from './rdp.ts';
import { MOONLIGHT_PIN_WINDOW_SECONDS, STREAMING_INGRESS } from './streaming.ts';

/** The public guides page. */
export const GUIDES_PATH = '/guides';

const RELEASES = 'https://github.com/moonlight-stream/moonlight-qt/releases/latest';
const PLAY_STORE = 'https://play.google.com/store/apps/details?id=com.limelight';

export type MoonlightDownload = {
  /** The device family, as people name it. */
  os: string;
  /** What to download or install, named as the store or the release page names it. */
  file: string;
  /** Where: the official page. */
  url: string;
  /** The link's words. */
  linkText: string;
};

/** Moonlight for each kind of device: which file, from its official page. */
export const MOONLIGHT_DOWNLOADS: readonly MoonlightDownload[] = [
  {
    os: 'Windows',
    file: 'MoonlightSetup-<version>.exe (the installer), under Assets; or MoonlightPortable-x64-<version>.zip, which runs without installing',
    url: RELEASES,
    linkText: 'Moonlight releases on GitHub',
  },
  {
    os: 'macOS',
    file: 'Moonlight-<version>.dmg, under Assets: open it and drag Moonlight to Applications',
    url: RELEASES,
    linkText: 'Moonlight releases on GitHub',
  },
  {
    os: 'Android',
    file: 'the app “Moonlight Game Streaming”',
    url: PLAY_STORE,
    linkText: 'Moonlight on Google Play',
  },
  {
    os: 'Android TV',
    file: 'the same app, “Moonlight Game Streaming”, from the Play Store on your TV (search for Moonlight)',
    url: PLAY_STORE,
    linkText: 'Moonlight on Google Play',
  },
  {
    os: 'iPhone and iPad (iOS, iPadOS)',
    file: 'the app “Moonlight Game Streaming”',
    url: 'https://apps.apple.com/app/moonlight-game-streaming/id1000551566',
    linkText: 'Moonlight on the App Store',
  },
  {
    os: 'Linux',
    file: 'com.moonlight_stream.Moonlight from Flathub (flatpak install flathub com.moonlight_stream.Moonlight); or Moonlight-<version>-x86_64.AppImage from the releases',
    url: 'https://flathub.org/apps/com.moonlight_stream.Moonlight',
    linkText: 'Moonlight on Flathub',
  },
];

export type PortRule = { protocol: 'TCP' | 'UDP'; ports: string; app: string; use: string };

/** "Moonlight (HTTPS)" → "HTTPS"; "Amazon DCV over QUIC" → "desktop over QUIC". */
function portUse(purpose: string): string {
  if (purpose.startsWith('Moonlight'))
    return purpose.replace(/^Moonlight\s*/, '').replace(/^\((.*)\)$/, '$1');
  return purpose.replace(/^Amazon DCV/, 'desktop').trim();
}

/**
 * What must be able to leave the customer's network (nothing comes in to them): the machines'
 * inbound rules for customers, by app. School and office networks often block the UDP ones.
 */
export const CUSTOMER_PORTS: readonly PortRule[] = [
  ...STREAMING_INGRESS.filter((rule) => rule.source === 'anyone').map((rule) => ({
    protocol: rule.protocol.toUpperCase() as 'TCP' | 'UDP',
    ports: rule.from === rule.to ? String(rule.from) : `${rule.from}–${rule.to}`,
    app: rule.purpose.startsWith('Moonlight') ? 'Moonlight' : 'Amazon DCV (app and browser)',
    use: portUse(rule.purpose),
  })),
  { protocol: 'TCP', ports: String(RDP_DEFAULT_PORT), app: 'Remote Desktop', use: 'desktop' },
];

/** One line per app: "Moonlight: TCP 47984, 47989, 48010 and UDP 47998–48000, 48010". */
export function portsSummary(app: PortRule['app']): string {
  const rules = CUSTOMER_PORTS.filter((rule) => rule.app === app);
  const by = (protocol: 'TCP' | 'UDP') => rules.filter((r) => r.protocol === protocol).map((r) => r.ports);
  return (['TCP', 'UDP'] as const)
    .filter((protocol) => by(protocol).length > 0)
    .map((protocol) => `${protocol} ${by(protocol).join(', ')}`)
    .join(' and ');
}

/**
 * Anchors of the failures on the guides page: the health line links to `/guides#<anchor>` (the
 * image's fields for audio, gamepads and the display use these too).
 */
export const TROUBLESHOOTING_ANCHORS = {
  pairingRefused: 'pairing-refused',
  blackScreen: 'black-screen',
  noSound: 'no-sound',
  controllerNotDetected: 'controller-not-detected',
  stutter: 'stutter-or-high-latency',
  pcNotFound: 'pc-not-found',
} as const;
export type TroubleshootingKey = keyof typeof TROUBLESHOOTING_ANCHORS;

export function troubleshootingHref(key: TroubleshootingKey): string {
  return `${GUIDES_PATH}#${TROUBLESHOOTING_ANCHORS[key]}`;
}

/**
 * The health line's fields a failure is checked against, each with the id of its line on the
 * dashboard (`/dashboard#<id>`), so a guide links to it and the field links back.
 */
export const HEALTH_FIELDS = {
  streamHost: { id: 'health-stream-host', label: 'Streaming host', failure: 'pairingRefused' },
  display: { id: 'health-display', label: 'Display', failure: 'blackScreen' },
  audio: { id: 'health-audio', label: 'Sound', failure: 'noSound' },
  gamepad: { id: 'health-gamepad', label: 'Gamepad', failure: 'controllerNotDetected' },
  driver: { id: 'health-driver', label: 'Gaming driver', failure: 'stutter' },
  address: { id: 'health-address', label: 'Address', failure: 'pcNotFound' },
} as const satisfies Record<string, { id: string; label: string; failure: TroubleshootingKey }>;
export type HealthField = keyof typeof HEALTH_FIELDS;

export function healthFieldHref(field: HealthField): string {
  return `/dashboard#${HEALTH_FIELDS[field].id}`;
}

export type Troubleshooting = {
  key: TroubleshootingKey;
  anchor: string;
  title: string;
  /** What to check, in order: the first that explains it is usually the cause. */
  checks: readonly string[];
  /** The health line's field that shows it. */
  field: HealthField;
};

const field = (key: HealthField) => HEALTH_FIELDS[key].label;

const ENTRIES: ReadonlyArray<Omit<Troubleshooting, 'anchor'>> = [
  {
    key: 'pairingRefused',
    title: 'Pairing is refused',
    field: 'streamHost',
    checks: [
      `Type the PIN Moonlight shows right now, within ${MOONLIGHT_PIN_WINDOW_SECONDS / 60} minutes of it appearing; a PIN from an earlier try does not work.`,
      'Keep Moonlight open on the PIN screen until the dashboard says the device is paired.',
      `On your dashboard, the health line’s “${field('streamHost')}” must say Running. If it does not, STOP and START your PC, then pair again.`,
      'Pair one device at a time, and give each device its own name.',
    ],
  },
  {
    key: 'blackScreen',
    title: 'Black screen',
    field: 'display',
    checks: [
      `On your dashboard, the health line’s “${field('display')}” must show a resolution such as 1920 × 1080. “No display” means STOP and START your PC.`,
      'In Moonlight, open Desktop first, not a game, and see whether Windows appears.',
      'In Moonlight’s settings, choose a resolution of 1080p, 1440p or 4K and a frame rate of 60 fps, then connect again.',
      'Open your PC in the browser from the dashboard: if Windows shows there, the stream settings are the cause.',
    ],
  },
  {
    key: 'noSound',
    title: 'No sound',
    field: 'audio',
    checks: [
      `On your dashboard, look at the health line’s “${field('audio')}” line: it says whether your PC has a sound device to stream.`,
      'In Moonlight’s settings, turn off “Play audio on host PC” and choose Stereo.',
      'Check the volume on the device you play on, and its Bluetooth headphones if you use them.',
      'In Windows on your PC, open the sound settings and pick the Steam Streaming or Sunshine speakers as the output.',
    ],
  },
  {
    key: 'controllerNotDetected',
    title: 'Controller not detected',
    field: 'gamepad',
    checks: [
      'Connect the controller to your device (USB or Bluetooth) before you start the stream, and check it works there.',
      `On your dashboard, look at the health line’s “${field('gamepad')}” line: your PC needs its virtual gamepad driver to receive controllers.`,
      'In Moonlight’s settings, turn on support for several controllers if you use more than one.',
      'In the game, choose controller input in its settings; some games need a restart after a controller appears.',
    ],
  },
  {
    key: 'stutter',
    title: 'Stutter or high latency',
    field: 'driver',
    checks: [
      'Run the connection check at the time you play: it says the quality your line carries.',
      'Use a network cable, or 5 GHz Wi-Fi close to your router, and pause downloads and video on your network.',
      `Lower Moonlight’s resolution or frame rate to what your line carries: ${GAMING.minimumMbps} Mbps for 720p at 60 fps, ${GAMING.recommendedMbps} Mbps for 1080p at 60 fps.`,
      `On your dashboard, the health line’s “${field('driver')}” must say Licensed; if not, we are alerted and a STOP and START usually fixes it.`,
    ],
  },
  {
    key: 'pcNotFound',
    title: '“PC not found”',
    field: 'address',
    checks: [
      'On your dashboard, your PC must say Running: it can only be found while it runs.',
      `In Moonlight, the PC must be added by the name or IP the health line’s “${field('address')}” shows. Without a name, the IP changes at every START: add the new one (your pairing stays).`,
      'Just after a START, wait a minute: the name takes up to a minute to reach your device.',
      `Your network must let Moonlight’s ports out (${portsSummary('Moonlight')}): school, office and some mobile networks block them. Try another network.`,
    ],
  },
];

/** The failures, in the order the guides list them. */
export const TROUBLESHOOTING: readonly Troubleshooting[] = ENTRIES.map((entry) => ({
  ...entry,
  anchor: TROUBLESHOOTING_ANCHORS[entry.key],
}));

/** The other ports named once, for the guides' text. */
export const DCV_PORT_TEXT = `TCP and UDP ${DCV_PORT}`;
export const RDP_PORT_TEXT = `TCP ${RDP_DEFAULT_PORT}`;
