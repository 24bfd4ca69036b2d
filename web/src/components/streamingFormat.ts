import { INDIA_TIME_ZONE } from '../../../core/domain/time.ts';

/** "10:42 pm": when something happened today, in India time (the customers' clock). */
export function formatClockTime(iso: string): string {
  return new Date(iso).toLocaleTimeString('en-IN', {
    timeZone: INDIA_TIME_ZONE,
    hour: 'numeric',
    minute: '2-digit',
  });
}
