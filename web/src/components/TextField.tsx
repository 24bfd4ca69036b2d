import type { InputHTMLAttributes } from 'react';
import { normalisePhoneInput } from '../../../core/domain/phone.ts';

type FieldProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> & {
  label: string;
  value: string;
  onChange: (value: string) => void;
};

/** A `.field`: the caption and its input in one label. Other input attributes pass through. */
export function TextField({ label, onChange, ...input }: FieldProps) {
  return (
    <label className="field">
      <span>{label}</span>
      <input {...input} onChange={(e) => onChange(e.target.value)} />
    </label>
  );
}

/** The required "Email" input of every form. */
export function EmailField(props: Omit<FieldProps, 'label'> & { label?: string }) {
  return <TextField label="Email" name="email" type="email" autoComplete="email" required {...props} />;
}

/** A required Indian mobile number: keeps only the ten digits a pasted number ends up with. */
export function PhoneField({ onChange, ...props }: FieldProps) {
  return (
    <TextField
      type="tel"
      inputMode="numeric"
      autoComplete="tel-national"
      required
      {...props}
      onChange={(value) => onChange(normalisePhoneInput(value))}
    />
  );
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
