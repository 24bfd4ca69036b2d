import { useId, type InputHTMLAttributes } from 'react';

type FieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> & {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** A problem with this field: shown under it, and the input is marked invalid. */
  error?: string | null;
};

/** A `.field`: the caption and its input in one label. Other input attributes pass through. */
export function TextField({ label, onChange, error, ...input }: FieldProps) {
  const errorId = useId();
  return (
    <label className="field">
      <span>{label}</span>
      <input
        {...input}
        {...(error ? { 'aria-invalid': true, 'aria-describedby': errorId } : {})}
        onChange={(e) => onChange(e.target.value)}
      />
      {error && <FieldError id={errorId} text={error} />}
    </label>
  );
}

/**
 * The line under a field that says what is wrong with it. Hidden from the label's name (the
 * field stays "Email", not "Email Required"); assistive tech reads it as the field's description.
 */
export function FieldError({ id, text }: { id: string; text: string }) {
  return (
    <span className="field-error" id={id} aria-hidden="true">
      {text}
    </span>
  );
}

/** The required "Email" input of every form. */
export function EmailField(props: Omit<FieldProps, 'label'> & { label?: string }) {
  return <TextField label="Email" name="email" type="email" autoComplete="email" required {...props} />;
}

/**
 * A required Indian mobile number, kept exactly as typed or pasted ("+91 98765-43210" is never
 * cut short): the form reads its ten digits with `phoneDigits` (core/domain/phone.ts) on submit,
 * and the server does the same.
 */
export function PhoneField(props: FieldProps) {
  return <TextField type="tel" inputMode="tel" autoComplete="tel" required {...props} />;
}

/** A 6-digit code (mailed OTP or authenticator app): digits only, six at most. */
export function CodeField({ onChange, ...props }: FieldProps) {
  return (
    <TextField
      name="otp"
      inputMode="numeric"
      autoComplete="one-time-code"
      maxLength={6}
      {...props}
      onChange={(value) => onChange(value.replace(/\D/g, '').slice(0, 6))}
    />
  );
}
