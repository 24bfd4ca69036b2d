import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

/**
 * Preloaded (`node --import`) into the web process the poll benchmark loads, when it is asked
 * for CPU profiles (BENCH_POLL_PROFILE): profiles a window the bench marks, so a profile holds
 * one target's load and nothing of the process's start. Nothing runs until asked.
 *
 * IPC: `{ profile: 'start' }` starts the V8 profiler (node:inspector); `{ profile: 'stop', file }`
 * stops it, writes the profile to `file` and answers `{ profiled: file }`.
 */

const profiler = new Session();
process.on('message', (message: { profile?: 'start' | 'stop'; file?: string }) => {
  const step =
    message.profile === 'start'
      ? (async () => {
          profiler.connect();
          await profiler.post('Profiler.enable');
          await profiler.post('Profiler.start');
        })()
      : message.profile === 'stop' && message.file
        ? (async () => {
            const { profile } = await profiler.post('Profiler.stop');
            profiler.disconnect();
            await writeFile(message.file!, JSON.stringify(profile));
            process.send!({ profiled: message.file });
          })()
        : Promise.resolve();
  step.catch((error: unknown) => {
    console.error('profiler: profiling failed', error);
    process.exit(1);
  });
});
