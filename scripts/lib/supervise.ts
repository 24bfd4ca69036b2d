import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../../core/observability/log.ts';

/**
 * How `npm start` keeps its web and worker processes running: a process that exits on its own
 * is started again after a pause that doubles with each crash of the last minute; the fifth
 * crash within a minute is a crash loop, and restarting would only hide it.
 */
export const CRASH_LOOP = { crashes: 5, windowMs: 60_000 };
const FIRST_PAUSE_MS = 500;
const LONGEST_PAUSE_MS = 30_000;

export type AfterCrash = { action: 'restart'; pauseMs: number } | { action: 'give-up' };

/** What to do after a crash at `now`, given the times of this process's crashes (this one included). */
export function afterCrash(crashTimes: number[], now: number): AfterCrash {
  const recent = crashTimes.filter((t) => now - t < CRASH_LOOP.windowMs).length;
  if (recent >= CRASH_LOOP.crashes) return { action: 'give-up' };
  return { action: 'restart', pauseMs: Math.min(LONGEST_PAUSE_MS, FIRST_PAUSE_MS * 2 ** (recent - 1)) };
}

export type Supervised = {
  name: string;
  /** The running child, if any. */
  child(): ChildProcess | undefined;
  /** Restarts it no more: it is about to be stopped, so its exit is no crash. */
  hold(): void;
  /** Stops it for good (SIGTERM, SIGKILL after `graceMs`) and restarts it no more. */
  stop(graceMs?: number): Promise<void>;
};

/**
 * Runs `start()` and starts it again whenever the process exits unasked, as `afterCrash` says.
 * `onStart` hears of every start (the first included); `onGiveUp` of a crash loop.
 */
export function supervise(options: {
  name: string;
  start: () => ChildProcess;
  log: Logger;
  onStart?: (child: ChildProcess, restarts: number) => void;
  onGiveUp: (sentence: string) => void;
  clock?: () => number;
}): Supervised {
  const clock = options.clock ?? Date.now;
  const crashes: number[] = [];
  let restarts = 0;
  let current: ChildProcess | undefined;
  let stopped = false;
  let pause: NodeJS.Timeout | undefined;

  const run = () => {
    if (stopped) return;
    const child = options.start();
    current = child;
    options.onStart?.(child, restarts);
    child.once('exit', (code, signal) => {
      if (current === child) current = undefined;
      if (stopped) {
        options.log.info({ process: options.name, exitCode: code, signal }, `${options.name} stopped`);
        return;
      }
      const now = clock();
      crashes.push(now);
      const next = afterCrash(crashes, now);
      if (next.action === 'give-up') {
        stopped = true;
        options.onGiveUp(
          `The ${options.name} crashed ${CRASH_LOOP.crashes} times within a minute, so npm start stopped everything: the log above says why it crashes.`,
        );
        return;
      }
      restarts++;
      options.log.error(
        { process: options.name, exitCode: code, signal, restartInMs: next.pauseMs, restart: restarts },
        `${options.name} exited unexpectedly; restarting it`,
      );
      pause = setTimeout(run, next.pauseMs);
    });
  };
  run();

  const hold = () => {
    stopped = true;
    clearTimeout(pause);
  };
  return {
    name: options.name,
    child: () => current,
    hold,
    async stop(graceMs = 25_000) {
      hold();
      const child = current;
      if (!child || child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      });
    },
  };
}

/** Starts `node <script>` with `env`, its output on ours and a channel for messages. */
export function nodeProcess(script: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, [script], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env });
}

/**
 * Stops each process in turn, the next once the one before has ended, restarting none of them
 * meanwhile: on Ctrl-C the terminal signals the children too, and one that ends of it while an
 * earlier one is still stopping is stopping as asked, not crashing.
 */
export async function stopInOrder(processes: Array<Supervised | undefined>): Promise<void> {
  for (const process of processes) process?.hold();
  for (const process of processes) await process?.stop();
}
