/**
 * A form's message line. The spec styles messages containing "success" as success (§8
 * "Forgot password"); the others are errors unless told otherwise.
 */
export type Status = { kind: 'success' | 'error' | 'info'; text: string } | null;

export function statusFrom(text: string, kind?: 'success' | 'error' | 'info'): Status {
  return { kind: kind ?? (/success/i.test(text) ? 'success' : 'error'), text };
}

/** `id` lets fields point at the message with aria-describedby. */
export function StatusMessage({ status, id }: { status: Status; id?: string }) {
  return (
    <div id={id} role="status" aria-live="polite" className="form-status">
      {status && <p className={`notice ${status.kind}`}>{status.text}</p>}
    </div>
  );
}
