/**
 * A form's message line. The spec styles messages containing "success" as success (§8
 * "Forgot password"); the others are errors unless told otherwise.
 */
export type Status = { kind: 'success' | 'error' | 'info'; text: string } | null;

export function statusFrom(text: string, kind?: 'success' | 'error' | 'info'): Status {
  return { kind: kind ?? (/success/i.test(text) ? 'success' : 'error'), text };
}

export function StatusMessage({ status }: { status: Status }) {
  return (
    <div role="status" aria-live="polite" className="form-status">
      {status && <p className={`notice ${status.kind}`}>{status.text}</p>}
    </div>
  );
}
