/** The services page's copy (spec §2 "Services page", §3 "Use case"): the ten use cases and the FAQ. */
import { PROVISIONING_TIME, SUPPORT_REPLY_TIME, TIME_TO_DESKTOP } from '../constants.ts';
import { PLAN_VALIDITY_LABEL, type DurationHours, type PlanId } from '../plans.ts';
import { TRIAL_LABEL } from '../trial.ts';
import { GAMING, GAMING_PLAN, GAMING_SPEED_SENTENCE } from '../gaming.ts';
import type { SitePath } from '../siteRoutes.ts';
import { THRESHOLDS } from '../connectionCheck.ts';
import { SITE_FACTS } from './facts.ts';

/** The public guides page (core/domain/guides.ts), named here without pulling its rules into this page's code. */
const GUIDES_PATH: SitePath = '/guides';

/** The ten use cases of spec §3, in the spec's order. */
export const USE_CASE_IDS = [
  'development',
  'gaming',
  'editing',
  'ai',
  'data',
  'office',
  'student',
  'lab',
  'cyber',
  'game',
] as const;
export type UseCaseId = (typeof USE_CASE_IDS)[number];

export interface UseCase {
  id: UseCaseId;
  title: string;
  /** Fits inside the radial picker's buttons and the highlights. */
  shortTitle: string;
  description: string;
  recommendedPlan: PlanId;
  /** Always some of the catalogue's DURATIONS (spec §3's "95" is not a duration we sell: 90). */
  suggestedHours: readonly DurationHours[];
  powerNote: string;
  /** Shown among the highlights above the picker. */
  highlight: boolean;
}

export const USE_CASES: readonly UseCase[] = [
  {
    id: 'development',
    title: 'Software development',
    shortTitle: 'Dev',
    description:
      'Keep your IDE, containers, databases and a dozen browser tabs open together, and build fast on a clean Windows machine.',
    recommendedPlan: 'pro-legend',
    suggestedHours: [30, 45],
    powerNote: '32 GB RAM leaves room for Docker, emulators and large builds.',
    highlight: true,
  },
  {
    id: 'gaming',
    title: 'Gaming',
    shortTitle: 'Gaming',
    description:
      'Play the PC games your laptop cannot: install from Steam or Epic and stream them with Moonlight to your phone, TV or laptop at high frame rates.',
    recommendedPlan: GAMING_PLAN,
    suggestedHours: [65, 90],
    powerNote: `The A10G GPU streams up to ${GAMING.maxFps} fps at 1080p, or ${GAMING.maxResolution} at 60 fps.`,
    highlight: true,
  },
  {
    id: 'editing',
    title: 'Video editing',
    shortTitle: 'Editing',
    description:
      'Edit and export 4K projects in Premiere Pro, DaVinci Resolve or After Effects with GPU-accelerated effects and renders.',
    recommendedPlan: 'pro-legend',
    suggestedHours: [45, 65, 90],
    powerNote: '32 GB RAM and a T4 GPU keep long timelines smooth.',
    highlight: true,
  },
  {
    id: 'ai',
    title: 'AI and machine learning',
    shortTitle: 'AI / ML',
    description:
      'Train and fine-tune models, run notebooks and try local LLMs on a GPU with CUDA, without buying one.',
    recommendedPlan: 'ultra-legend',
    suggestedHours: [90],
    powerNote: '24 GB of GPU memory on the A10G fits larger models and batches.',
    highlight: true,
  },
  {
    id: 'data',
    title: 'Data science',
    shortTitle: 'Data',
    description:
      'Crunch large datasets in Python, R, Power BI or Excel without your laptop fan screaming or freezing.',
    recommendedPlan: 'pro-legend',
    suggestedHours: [45, 65],
    powerNote: 'Plenty of RAM for dataframes that do not fit on a laptop.',
    highlight: false,
  },
  {
    id: 'office',
    title: 'Office and productivity',
    shortTitle: 'Office',
    description:
      'A fast, always-updated Windows desktop for documents, meetings and multitasking from any device.',
    recommendedPlan: 'legend',
    suggestedHours: [30],
    powerNote: '16 GB RAM is ample for office suites and many tabs.',
    highlight: false,
  },
  {
    id: 'student',
    title: 'Students',
    shortTitle: 'Students',
    description:
      'Run the software your course needs, such as AutoCAD, MATLAB or Android Studio, on a budget and only when you need it.',
    recommendedPlan: 'legend',
    suggestedHours: [30, 45],
    powerNote: 'The lowest price with a real GPU for coursework and projects.',
    highlight: false,
  },
  {
    id: 'lab',
    title: 'Virtual labs',
    shortTitle: 'Labs',
    description:
      'Give a class or a training batch identical Windows machines for practicals, without maintaining a computer lab.',
    recommendedPlan: 'legend',
    suggestedHours: [30, 45],
    powerNote: 'Every student gets the same clean machine, reachable from home.',
    highlight: false,
  },
  {
    id: 'cyber',
    title: 'Cybersecurity practice',
    shortTitle: 'Cyber',
    description:
      'Practise forensics, reverse engineering and blue-team tools on an isolated machine that is yours alone.',
    recommendedPlan: 'pro-legend',
    suggestedHours: [45, 65],
    powerNote: '32 GB RAM runs analysis tools side by side. Test only systems you own.',
    highlight: false,
  },
  {
    id: 'game',
    title: 'Game development',
    shortTitle: 'Game dev',
    description:
      'Build in Unreal Engine or Unity, bake lighting and package builds on a GPU made for real-time 3D.',
    recommendedPlan: 'ultra-legend',
    suggestedHours: [65, 90],
    powerNote: 'The A10G handles Unreal’s editor, Lumen and shader compiles.',
    highlight: false,
  },
];

export interface FaqItem {
  question: string;
  answer: string;
  /** A page that says more (the guides, the connection check). */
  link?: { href: string; text: string };
}

export interface FaqCategory {
  id: string;
  title: string;
  items: readonly FaqItem[];
}

export const FAQ: readonly FaqCategory[] = [
  {
    id: 'plans',
    title: 'Plans and pricing',
    items: [
      {
        question: 'How do plans work?',
        answer: `You buy a bundle of ${SITE_FACTS.durationsText} of use. It is valid for ${PLAN_VALIDITY_LABEL} from purchase, and hours count only while your cloud PC is running.`,
      },
      {
        question: 'Which plan should I choose?',
        answer: `${GAMING.lightPlanName} suits everyday work, study and lighter games. Pro Legend has 32 GB RAM for editing and development. ${GAMING.planName} has the stronger A10G GPU: it is the plan for demanding games (up to ${GAMING.maxFps} fps), and for AI, Unreal and Revit.`,
      },
      {
        question: 'Are prices inclusive of GST?',
        answer: 'Yes. The price you see is the price you pay, and your invoice shows the GST included in it.',
      },
      {
        question: 'How do I pay?',
        answer:
          'Through PayU, India’s payment gateway: UPI, debit and credit cards, net banking and wallets. We never see or store your card details.',
      },
    ],
  },
  {
    id: 'trial',
    title: 'Trial',
    items: [
      {
        question: 'Is there a trial?',
        answer: `Yes: a ${TRIAL_LABEL} trial of any of the three plans, from ${SITE_FACTS.trialFrom}. Log in and start it from the trial page.`,
      },
      {
        question: 'What happens when the trial ends?',
        answer: `After ${TRIAL_LABEL} of use your cloud PC stops. Choose a plan whenever you are ready to keep going.`,
      },
    ],
  },
  {
    id: 'connecting',
    title: 'Connecting',
    items: [
      {
        question: 'How do I connect to my cloud PC?',
        answer:
          'To play games, use Moonlight: install it on your phone, TV or computer, add your PC by the name or address your dashboard shows, and type the PIN Moonlight shows into the dashboard. To work, download the Remote Desktop file and the password file from the dashboard, open the desktop file and paste the password when asked; or open your desktop in the browser, with nothing to install.',
        link: { href: GUIDES_PATH, text: 'Step-by-step guides for every device' },
      },
      {
        question: 'How do I play games on my cloud PC?',
        answer: `With Moonlight, a free app for Windows, macOS, Linux, Android, Android TV, iPhone and iPad: it streams your PC's screen at up to ${GAMING.maxFps} fps with sound and gamepads. The guides say which file to get for your device, which ports your network must allow, and what to check when something fails.`,
        link: { href: GUIDES_PATH, text: 'The Moonlight guides' },
      },
      {
        question: 'How long until my PC is ready?',
        answer: `Usually ${TIME_TO_DESKTOP.label}. When a new machine has to be built for you it takes ${PROVISIONING_TIME.label}. Your dashboard shows the progress.`,
      },
      {
        question: 'What internet speed do I need?',
        answer: `${GAMING_SPEED_SENTENCE} For work over Remote Desktop or the browser, ${THRESHOLDS.work.great.mbps} Mbps is comfortable. A wired or 5 GHz Wi-Fi connection helps.`,
        link: { href: '/connection-check', text: 'Check your connection' },
      },
      {
        question: 'Does my PC keep its address?',
        answer:
          'Your PC gets a new IP address every time it starts. Your dashboard shows whether it also has a name that stays the same: with one, Moonlight and your desktop file keep working after every start; without, add the new address in Moonlight and download the desktop file again after each start.',
      },
    ],
  },
  {
    id: 'account',
    title: 'Account and support',
    items: [
      {
        question: 'Are my files kept between sessions?',
        answer:
          'Yes. Everything on your cloud PC’s disk stays there while your plan is active, including when you stop and start it.',
      },
      {
        question: 'Can I get a refund?',
        answer:
          'Yes, a share of the price depending on how many days into the plan you cancel. The Terms of Service list the exact percentages.',
      },
      {
        question: 'How do I reach support?',
        answer: `Use the contact form or report a problem from your profile menu. We reply within ${SUPPORT_REPLY_TIME.label}.`,
      },
    ],
  },
];
