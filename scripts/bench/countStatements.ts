import pg from 'pg';

/**
 * Preloaded (`node --import`) into a separate, short run of the bench's web process
 * (scripts/lib/devWeb.ts, as npm start runs it) to count the statements every `pg` client sends: how many round
 * trips and writes one request costs. Never loaded into the process whose speed is measured:
 * the patch wraps every query, and would slow what it measures.
 *
 * IPC: `{ count: 'start' }` zeroes the counts and starts counting; `{ count: 'end' }` stops and
 * answers `{ counts: { statements, writes, texts } }` (texts: each statement's first 90
 * characters and how often it was sent).
 */

let counting = false;
const counts = { statements: 0, writes: 0, texts: new Map<string, number>() };
const originalQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function countedQuery(this: pg.Client, ...args: unknown[]) {
  if (counting) {
    const first = args[0];
    const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
    counts.statements++;
    if (/^\s*(INSERT|UPDATE|DELETE)\b/i.test(text)) counts.writes++;
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 90);
    counts.texts.set(key, (counts.texts.get(key) ?? 0) + 1);
  }
  return originalQuery.apply(this, args);
} as typeof pg.Client.prototype.query;

process.on('message', (message: { count?: 'start' | 'end' }) => {
  if (message.count === 'start') {
    counts.statements = 0;
    counts.writes = 0;
    counts.texts.clear();
    counting = true;
  }
  if (message.count === 'end') {
    counting = false;
    process.send!({
      counts: {
        statements: counts.statements,
        writes: counts.writes,
        texts: Object.fromEntries(counts.texts),
      },
    });
  }
});
