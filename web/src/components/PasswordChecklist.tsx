import { passwordChecklist } from '../../../core/domain/password.ts';

/** The live checklist of spec §2 Register: each rule ticks as the password meets it. */
export function PasswordChecklist({ password, id }: { password: string; id?: string }) {
  return (
    <ul className="password-checklist" id={id} aria-label="Password rules" aria-live="polite">
      {passwordChecklist(password).map((check) => (
        <li key={check.id} className={check.passed ? 'passed' : 'failed'}>
          <span aria-hidden="true" className="check-mark">
            {check.passed ? '✓' : '✗'}
          </span>
          {check.label}
          <span className="visually-hidden">{check.passed ? ' (met)' : ' (not met)'}</span>
        </li>
      ))}
    </ul>
  );
}
