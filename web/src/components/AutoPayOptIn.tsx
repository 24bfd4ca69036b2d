import { AUTOPAY_MESSAGES, autoRenewTerms, type AutoRenewOffer } from '../../../core/domain/autopay.ts';
import './autopay.css';

/**
 * "Renew automatically every month" on Confirm & Pay: off unless the customer ticks it. The terms
 * beside it say what they agree to: the amount, the first renewal's date, the notice before each
 * debit, and that it can be cancelled any time.
 */
export function AutoPayOptIn({
  offer,
  checked,
  onChange,
  disabled,
}: {
  offer: AutoRenewOffer;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled: boolean;
}) {
  return (
    <div className="autopay-optin">
      <label className="autopay-toggle">
        <input
          type="checkbox"
          checked={checked}
          onChange={(event) => onChange(event.target.checked)}
          disabled={disabled}
          aria-describedby="autopay-terms"
        />
        <span>{AUTOPAY_MESSAGES.optInLabel}</span>
      </label>
      <p className="autopay-terms" id="autopay-terms">
        {autoRenewTerms(offer)}
      </p>
    </div>
  );
}
