import './streaming.css';
import type { MachineHealthView } from '../../../core/domain/machineHealth.ts';
import { formatClockTime } from './streamingFormat.ts';

/**
 * The machine card's health line: what the PC is ready for ("Ready for 1440p 120 fps streaming"),
 * or what is wrong and what the customer can do, from the machine's own last report; the facts
 * behind it fold away.
 */
export function MachineHealthLine({ health }: { health: MachineHealthView | null }) {
  if (!health || health.status === 'off') return null;
  const facts: Array<[string, string]> = [];
  if (health.gpu) facts.push(['Graphics', health.gpu]);
  if (health.driverLicensed !== null)
    facts.push(['Gaming driver', health.driverLicensed ? 'Licensed' : 'Not licensed']);
  if (health.display)
    facts.push([
      'Display',
      `${health.display.width} × ${health.display.height}${health.display.refreshHz ? ` at ${health.display.refreshHz} Hz` : ''}`,
    ]);
  if (health.freeDiskGb !== null) facts.push(['Free disk', `${health.freeDiskGb} GB`]);
  return (
    <div
      className={`health-line health-${health.status}`}
      role="status"
      aria-live="polite"
      data-field="health"
    >
      <p className="health-headline">
        <span className="health-dot" aria-hidden="true" />
        <span>{health.headline}</span>
      </p>
      {health.advice && <p className="health-advice">{health.advice}</p>}
      {facts.length > 0 && (
        <details className="health-facts">
          <summary>
            What your PC reported{health.checkedAt ? `, at ${formatClockTime(health.checkedAt)}` : ''}
          </summary>
          <dl>
            {facts.map(([label, value]) => (
              <div key={label}>
                <dt>{label}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
        </details>
      )}
    </div>
  );
}
