import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * CPU time the whole Postgres server has used so far, in microseconds: the postmaster's own
 * time, what its finished children left it (cutime, cstime), and every live backend's. Read
 * from /proc, so Linux only; null elsewhere or when the server cannot be found.
 *
 * The bench differences two readings around a load, so a figure per request includes the
 * database's share of every request (parse, plan, execute, send), which the web process's own
 * CPU does not show, and which shares the same cores on a one-machine set-up.
 */
export async function postgresCpuMicros(dataDir: string): Promise<number | null> {
  try {
    const pid = Number.parseInt(
      (await readFile(path.join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]!,
      10,
    );
    const postmaster = await statOf(pid);
    if (!postmaster) return null;
    let ticks = postmaster.utime + postmaster.stime + postmaster.cutime + postmaster.cstime;
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const stat = await statOf(Number(entry));
      if (stat?.ppid === pid) ticks += stat.utime + stat.stime;
    }
    return ticks * MICROS_PER_TICK;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * CPU time (user + system) one process has used so far, in microseconds, read from /proc by its
 * pid: a process's own figure, whoever asks, so the bench can difference it around a load on
 * a server it started without the server having to answer. Null where /proc cannot tell.
 */
export async function processCpuMicros(pid: number): Promise<number | null> {
  const stat = await statOf(pid);
  return stat ? (stat.utime + stat.stime) * MICROS_PER_TICK : null;
}

/** /proc counts CPU in USER_HZ ticks, which Linux fixes at 100 a second for user space. */
const MICROS_PER_TICK = 10_000;

async function statOf(
  pid: number,
): Promise<{ ppid: number; utime: number; stime: number; cutime: number; cstime: number } | null> {
  let text: string;
  try {
    text = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    // The process ended between the listing and the read: its time is in the parent's cutime.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return null;
    throw error;
  }
  // The command name (field 2) may hold spaces and parentheses; the fields after it may not.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // After the name: state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17).
  const field = (n: number) => Number(fields[n - 3]);
  return { ppid: field(4), utime: field(14), stime: field(15), cutime: field(16), cstime: field(17) };
}
