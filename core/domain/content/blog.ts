/**
 * The blog's copy (spec §2 "Blogs", §3 "Blog post"): four posts. The spec's ten testimonials
 * are not published: nobody wrote them (docs/deviations.md).
 */
import { PROVISIONING_TIME, TIME_TO_DESKTOP } from '../constants.ts';
import { getPlan } from '../plans.ts';
import { TRIAL_LABEL } from '../trial.ts';
import { GAMING } from '../gaming.ts';
import { SITE_FACTS } from './facts.ts';

export interface BlogPost {
  /** As it appears in /BlogPostPage/{id}. */
  id: string;
  title: string;
  excerpt: string;
  /** ISO date, shown in en-IN. */
  publishedOn: string;
  readMinutes: number;
  tag: string;
  paragraphs: readonly string[];
}

/** The four featured posts. The trial is the one product length: TRIAL_LABEL. */
export const BLOG_POSTS: readonly BlogPost[] = [
  {
    id: '1',
    title: 'Cloud gaming in India without a gaming PC',
    excerpt:
      'How a GPU in a data centre lets you play AAA games on a five-year-old laptop, and what you need at home.',
    publishedOn: '2026-08-14',
    readMinutes: 4,
    tag: 'Gaming',
    paragraphs: [
      'A good gaming PC costs as much as a used scooter, and it is out of date in three years. Cloud gaming flips that: the expensive part, a GPU, sits in a data centre, and your laptop only shows the picture and sends your keystrokes.',
      `With Legend Cloud you get a whole Windows PC, not a catalogue of approved titles. Install Steam, Epic or any launcher, sign in to your own account and play the games you already own, at up to ${GAMING.maxFps} FPS on the ${GAMING.planName} plan.`,
      'You play through Moonlight, a free app for your phone, TV, tablet or laptop: it streams your PC’s screen and sound to it and sends back your keyboard, mouse and gamepad. Pair a device once from your dashboard and it stays paired.',
      `What matters at home is your connection, not your hardware. A stable ${GAMING.recommendedMbps} Mbps line is enough for smooth 1080p play at 60 fps, and ${GAMING.minimumMbps} Mbps for 720p; plug in a cable or sit close to a 5 GHz router to keep input lag low. The connection check on our site tells you what your line carries.`,
      'Because plans are bundles of hours, you pay for the evenings you actually play. Stop your PC when you are done and the clock stops with it.',
      `Not sure yet? Start a ${TRIAL_LABEL} trial from ${SITE_FACTS.trialFrom} and try your own game library before you choose a plan.`,
    ],
  },
  {
    id: '2',
    title: 'Editing 4K video on the laptop you already own',
    excerpt: 'Move your timeline to a cloud PC with 32 GB RAM and a GPU, and keep exporting while you sleep.',
    publishedOn: '2026-09-03',
    readMinutes: 5,
    tag: 'Editing',
    paragraphs: [
      'Editing 4K footage is where ordinary laptops give up: previews stutter, effects lag and an export ties the machine up for hours.',
      `A Pro Legend cloud PC gives you 32 GB of RAM, an NVIDIA GPU for accelerated effects and ${getPlan('pro-legend').storageGb} GB of fast storage. Install Premiere Pro, DaVinci Resolve or After Effects as you would on any Windows PC.`,
      'Upload your footage once to the cloud PC, or pull it straight from Google Drive or a client’s link at data-centre speed, which is usually far faster than your home upload.',
      'Start a long export, disconnect and close your laptop. The render keeps going in the cloud, and your project is waiting when you reconnect.',
      `Heavier work such as 8K, long documentaries or colour grading fits the bigger plans. Try your own project on a ${TRIAL_LABEL} trial first.`,
    ],
  },
  {
    id: '3',
    title: 'From payment to desktop: connecting in six steps',
    excerpt:
      'Everything between choosing a plan and seeing your Windows desktop, with tips for a first smooth session.',
    publishedOn: '2026-10-07',
    readMinutes: 4,
    tag: 'Guide',
    paragraphs: [
      `Getting started takes a few minutes. Pick Legend, Pro Legend or Ultra Legend and ${SITE_FACTS.durationsText}, then pay through PayU with UPI, a card or net banking.`,
      `Your dashboard shows your cloud PC as it starts. It is usually ready in ${TIME_TO_DESKTOP.label}; when a new machine has to be built for you, allow ${PROVISIONING_TIME.label}.`,
      'To work, download the Remote Desktop file and the password file from the dashboard. Open the desktop file, paste the password when Windows asks, and you are in. Or open your desktop in the browser, with nothing to install.',
      `To play, use Moonlight instead: install it on the device you play on, add your PC by the name or address the dashboard shows, and type the PIN Moonlight shows into the dashboard. Our guides say which file to get for each device and what to check if something fails. Games stream at up to ${GAMING.maxFps} fps; ${GAMING.recommendedMbps} Mbps carries 1080p at 60 fps.`,
      'Your PC gets a new IP address every time it starts. If your dashboard shows a name for your PC, Moonlight and your desktop file keep working after each start; if not, add the new address and download the desktop file again. Stop the PC from the dashboard when you finish so your hours last.',
      `Want to see it for yourself first? The ${TRIAL_LABEL} trial runs on the same machines as the paid plans.`,
    ],
  },
  {
    id: '4',
    title: 'A GPU for AI and ML coursework, by the hour',
    excerpt:
      'Train models, run notebooks and try local LLMs on a cloud GPU with 24 GB of memory, priced for students.',
    publishedOn: '2026-11-02',
    readMinutes: 4,
    tag: 'AI / ML',
    paragraphs: [
      'Deep learning coursework hits a wall on a laptop without a CUDA GPU: an epoch that should take minutes takes hours, and larger models simply do not fit.',
      'The Ultra Legend plan runs on an NVIDIA A10G with 24 GB of GPU memory. Install Python, CUDA, PyTorch or TensorFlow and Jupyter on Windows, or use WSL for a Linux toolchain.',
      'Because your disk stays put between sessions, datasets and checkpoints are still there next time. Leave a training run going, disconnect and check back later.',
      'Hours only count while the PC runs, so a student who trains a few evenings a week can pick a smaller bundle and stop the PC between sessions.',
      `Try your notebook on a ${TRIAL_LABEL} trial first and see how much faster it runs.`,
    ],
  },
];

export function findBlogPost(id: string): BlogPost | undefined {
  return BLOG_POSTS.find((post) => post.id === id);
}

export const BLOGS_INTRO = {
  title: 'Blogs',
  lead: 'Guides, stories and tips for getting the most out of a cloud PC, from gaming to AI coursework.',
  trialCta: `Try any plan for ${TRIAL_LABEL}`,
  trialText: `From ${SITE_FACTS.trialFrom}, on the same machines as the paid plans.`,
} as const;
