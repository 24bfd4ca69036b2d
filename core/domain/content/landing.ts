/** The landing page's copy (spec §2 "Landing page"): hero, About, tiles, What We Solve, Why, How-to. */
import { SUPPORT_REPLY_TIME, TIME_TO_DESKTOP } from '../constants.ts';
import { CARD_PLANS, DURATIONS, PLAN_VALIDITY_LABEL, getPlan, type PlanId } from '../plans.ts';
import { TRIAL_LABEL } from '../trial.ts';
import { GAMING, GAMING_PLAN } from '../gaming.ts';
import type { SitePath } from '../siteRoutes.ts';
import { SITE_FACTS } from './facts.ts';

/** The public guides page (core/domain/guides.ts), named here without pulling its rules into this page's code. */
const GUIDES_PATH: SitePath = '/guides';

/**
 * Rotates every TIMERS_MS.heroText. Kept about the same length, so each wraps to the same
 * number of lines and the space reserved for the longest is not left empty under the others.
 */
export const HERO_TEXTS: readonly string[] = [
  'Your gaming PC, now in the cloud.',
  'Edit 4K video on any laptop.',
  'Code and train AI anywhere.',
  `Your GPU desktop in ${TIME_TO_DESKTOP.label}.`,
];

/** Rotates every TIMERS_MS.tagline: the spec's marketing claims (§1), each short enough for one line at 360 px. */
export const TAGLINES: readonly string[] = [
  `Up to ${GAMING.maxFps} FPS gaming`,
  'Low-latency streaming',
  `Up to ${SITE_FACTS.storageMaxGb} GB cloud storage`,
  `Plans from ${SITE_FACTS.plansFrom} a month`,
  'Pay in rupees with UPI',
];

export const HERO_LEAD = `Rent a Windows cloud PC with an NVIDIA GPU by the hour. Connect from the laptop you already have, play, edit and build on hardware you never have to buy. Try it for ${TRIAL_LABEL} from ${SITE_FACTS.trialFrom}.`;

/**
 * The About section's figures. The time to desktop sits between the second and third: it comes
 * from `GET /api/site` (measured provisions), see timeToDesktop.ts.
 */
export const ABOUT = {
  title: 'About Legend Cloud',
  paragraphs: [
    'Legend Cloud rents powerful Windows computers that live in the cloud. Each one has a real NVIDIA GPU, fast storage and a Windows desktop you reach from any laptop, phone or TV, even an old one: with Moonlight to play games, or with Remote Desktop or your browser to work.',
    `We built it for gamers, video editors, developers, AI and ML learners and students across India who need a strong machine for some hours a month, not a ₹1 lakh purchase. Buy ${SITE_FACTS.durationsText} a month, pay in rupees, and use them whenever you like within ${PLAN_VALIDITY_LABEL}.`,
  ],
  stats: [
    { value: String(CARD_PLANS.length), label: 'GPU plans' },
    { value: `${DURATIONS[0]}–${DURATIONS.at(-1)}`, label: 'hours a month' },
    { value: String(SUPPORT_REPLY_TIME.hours), label: 'hours to a support reply' },
  ],
} as const;

export const FEATURE_IDS = ['gaming', 'editing', 'developing'] as const;
export type FeatureId = (typeof FEATURE_IDS)[number];

export interface Feature {
  id: FeatureId;
  title: string;
  text: string;
  points: readonly string[];
  plan: PlanId;
}

/** The three tiles: Gaming, Editing, Developing. */
export const FEATURES: readonly Feature[] = [
  {
    id: 'gaming',
    title: 'Gaming',
    text: `Play demanding PC games at up to ${GAMING.maxFps} FPS on a GPU in the cloud, streamed with Moonlight to the phone, TV or laptop you already have.`,
    points: ['NVIDIA GPU', 'Steam, Epic and more', 'Moonlight streaming with a gamepad'],
    plan: GAMING_PLAN,
  },
  {
    id: 'editing',
    title: 'Editing',
    text: 'Cut, grade and export 4K timelines in Premiere Pro, DaVinci Resolve or After Effects without a render farm.',
    points: ['32 GB RAM', `${getPlan('pro-legend').storageGb} GB storage`, 'GPU-accelerated exports'],
    plan: 'pro-legend',
  },
  {
    id: 'developing',
    title: 'Developing',
    text: 'Run heavy IDEs, Docker, Android emulators, Unreal and Unity builds on a machine that never slows you down.',
    points: ['Windows with admin rights', 'Fast builds', 'Reach it from anywhere'],
    plan: 'pro-legend',
  },
];

export interface ProblemSolved {
  problem: string;
  solution: string;
}

export const WHAT_WE_SOLVE: { title: string; lead: string; items: readonly ProblemSolved[] } = {
  title: 'What We Solve',
  lead: 'Powerful computers are expensive, go out of date and sit idle most of the month. We turn one into a monthly bundle of hours.',
  items: [
    {
      problem: 'Your laptop cannot run it',
      solution:
        'Games, editors and 3D tools run on a cloud PC with an NVIDIA GPU; your laptop only shows the picture.',
    },
    {
      problem: 'Upgrading costs a fortune',
      solution: `No ₹1 lakh upfront. Plans start at ${SITE_FACTS.plansFrom} a month for ${DURATIONS[0]} hours, GST included.`,
    },
    {
      problem: 'Setting up takes days',
      solution: `Windows is installed and ready. Your desktop is up in ${TIME_TO_DESKTOP.label}.`,
    },
    {
      problem: 'Your work is stuck on one machine',
      solution: `${SITE_FACTS.storageMinGb}–${SITE_FACTS.storageMaxGb} GB of cloud storage travels with you to any device you connect from.`,
    },
  ],
};

export interface WhyCard {
  id: string;
  title: string;
  text: string;
}

/** The six Why cards. */
export const WHY_CARDS: readonly WhyCard[] = [
  {
    id: 'fps',
    title: `Up to ${GAMING.maxFps} FPS`,
    text: `NVIDIA T4 and A10G GPUs keep games smooth and timelines responsive, streamed at up to ${GAMING.maxResolution}.`,
  },
  {
    id: 'latency',
    title: 'Low latency',
    text: 'Servers close to you and a streaming-friendly network keep input lag low.',
  },
  {
    id: 'storage',
    title: 'Built-in cloud storage',
    text: `${SITE_FACTS.storageMinGb} to ${SITE_FACTS.storageMaxGb} GB included every month, on fast SSD.`,
  },
  {
    id: 'hours',
    title: 'Pay for hours',
    text: `Choose ${SITE_FACTS.durationsText}. The clock runs only while your PC is on.`,
  },
  {
    id: 'speed',
    title: `Ready in ${TIME_TO_DESKTOP.label}`,
    text: 'No hardware, no installs. Pay, open the dashboard and connect.',
  },
  {
    id: 'support',
    title: 'Real support',
    text: `Write to us any time; a person replies within ${SUPPORT_REPLY_TIME.label}.`,
  },
];

export interface HowToStep {
  title: string;
  text: string;
}

/** The six-step How-to of spec §2, in its order. */
export const HOW_TO_STEPS: readonly HowToStep[] = [
  {
    title: 'Select a plan',
    text: `Pick Legend, Pro Legend or Ultra Legend and ${SITE_FACTS.durationsText}.`,
  },
  { title: 'Pay via PayU', text: 'UPI, cards, net banking or wallets, in rupees, on PayU’s secure page.' },
  { title: 'Visit your dashboard', text: 'Your cloud PC appears with its status and public IP.' },
  {
    title: 'Download the desktop and password files',
    text: 'One click each: the Remote Desktop file and your password.',
  },
  {
    title: 'Connect by pasting the password',
    text: 'Open the desktop file and paste the password when asked.',
  },
  {
    title: 'Your virtual computer is ready',
    text: 'Install your apps and get going. Stop it when you are done.',
  },
];

/**
 * Under the six steps: how to play, which the six steps (the spec's, for working over Remote
 * Desktop) do not say, and where to check a connection first.
 */
export const HOW_TO_PLAY = {
  title: 'Playing games? Use Moonlight',
  steps: [
    'Install Moonlight on the phone, TV or computer you will play on.',
    'Add your PC in Moonlight by the name or address your dashboard shows.',
    'Type the PIN Moonlight shows into your dashboard: the device is paired, and stays paired.',
  ],
  guidesLink: { href: GUIDES_PATH, text: 'Step-by-step guides for every device' },
  checkLink: { href: '/connection-check', text: 'Check your connection first' },
  speed: `Moonlight needs ${GAMING.minimumMbps} Mbps for 720p at 60 fps and ${GAMING.recommendedMbps} Mbps for 1080p at 60 fps. The ${GAMING.planName} plan is the one for demanding games.`,
} as const;
