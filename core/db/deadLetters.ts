import { z } from 'zod';
import { BOSS_SCHEMA, deadLetterQueue, QUEUE_NAMES, recordedErrorLine, type QueueName } from '../queue.ts';
import { sql, type Db } from './pool.ts';

/**
 * Jobs that exhausted their retries wait in `<queue>-dlq` for an operator (`npm run jobs --
 * dead`). Nobody looks there unprompted, so every new arrival is raised as an operator alert
 * (`job-dead-lettered`, one open alert per queue: its key is `deadLetterAlertKey`).
 */

const KEY_PREFIX = 'dead-letter:';
export const deadLetterAlertKey = (queue: QueueName): string => `${KEY_PREFIX}${queue}`;

const Arrivals = z.object({
  dlq: z.string(),
  count: z.number().int(),
  latest_output: z.unknown(),
});

/**
 * Per queue, the dead letters that arrived since its alert was last raised (all of them when it
 * never was), with the newest one's last error. Queues with none are left out.
 */
export async function deadLettersSinceRaised(
  db: Db,
): Promise<Array<{ queue: QueueName; count: number; latestError: string }>> {
  const byName = new Map(QUEUE_NAMES.map((queue) => [deadLetterQueue(queue), queue]));
  const rows = await db.any(sql.type(Arrivals)`
    SELECT d.name AS dlq, count(*)::int AS count,
      (array_agg(d.source_output ORDER BY d.created_on DESC))[1] AS latest_output
    FROM ${sql.identifier([BOSS_SCHEMA, 'job'])} d
    WHERE d.name = ANY(${sql.array([...byName.keys()], 'text')}) AND d.state IN ('created', 'retry')
      AND d.created_on > coalesce(
        (SELECT max(a.last_seen_at) FROM operator_alerts a
         WHERE a.dedupe_key = ${KEY_PREFIX} || left(d.name, -length('-dlq'))),
        '-infinity')
    GROUP BY d.name`);
  return rows.flatMap((row) => {
    const queue = byName.get(row.dlq);
    return queue
      ? [{ queue, count: row.count, latestError: recordedErrorLine(row.latest_output).slice(0, 300) }]
      : [];
  });
}
