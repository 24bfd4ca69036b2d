import { existsSync, readFileSync, renameSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PersistedStateSchema, type PersistedState } from './records.ts';

/**
 * The sandbox's world kept in one JSON file so `npm start` restarts keep their instances.
 * Writes are debounced and atomic (temporary file, then rename); a file that does not parse
 * is moved aside rather than trusted or silently overwritten.
 */

export function loadState(file: string, warn: (message: string) => void): PersistedState | null {
  if (!existsSync(file)) return null;
  try {
    const parsed = PersistedStateSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) return parsed.data;
  } catch {
    // fall through: unreadable or not JSON
  }
  const aside = `${file}.unreadable-${Date.now()}`;
  renameSync(file, aside);
  warn(`sandbox EC2: ${file} could not be read; moved to ${aside} and starting empty`);
  return null;
}

export type Saver = { schedule(): void; flush(): Promise<void> };

export function createSaver(
  file: string,
  serialize: () => PersistedState,
  debounceMs: number,
  warn: (message: string) => void,
): Saver {
  let timer: NodeJS.Timeout | null = null;
  let writing: Promise<void> | null = null;
  let dirty = false;

  async function write(): Promise<void> {
    dirty = false;
    const temporary = `${file}.${process.pid}.tmp`;
    try {
      await mkdir(dirname(file), { recursive: true });
      await writeFile(temporary, JSON.stringify(serialize()));
      await rename(temporary, file);
    } catch (error) {
      warn(`sandbox EC2: could not save ${file}: ${(error as Error).message}`);
    }
  }

  async function drain(): Promise<void> {
    // One write at a time; changes made meanwhile are written by the next round.
    while (writing) await writing;
    if (!dirty) return;
    writing = write().finally(() => {
      writing = null;
    });
    await writing;
  }

  return {
    schedule() {
      dirty = true;
      if (timer) return;
      timer = setTimeout(() => {
        timer = null;
        void drain();
      }, debounceMs);
      // A pending save never keeps the process alive on its own.
      timer.unref();
    },
    async flush() {
      if (timer) {
        clearTimeout(timer);
        timer = null;
      }
      await drain();
    },
  };
}
