import { escape, page } from '../html.ts';

/**
 * The human-facing screens of the PayU stand-in. The CSP allows no inline script or style,
 * so every action is a plain form; the one script (autosubmit.js) is a same-origin file.
 * Form actions are relative (`_complete`), so the pages work wherever the router is mounted.
 */

const INR = new Intl.NumberFormat('en-IN', { style: 'currency', currency: 'INR' });

export function rupees(paise: number): string {
  return INR.format(paise / 100);
}

function hidden(fields: Record<string, string>): string {
  return Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escape(name)}" value="${escape(value)}">`)
    .join('\n');
}

export type CheckoutView = {
  merchant: string;
  key: string;
  txnid: string;
  amountPaise: number;
  productinfo: string;
  firstname: string;
  email: string;
  phone: string;
  /** A standing-instruction registration (si=1): what the customer agrees to be debited. */
  si?: Record<string, unknown> | null;
};

export function checkoutPage(view: CheckoutView): string {
  const amount = rupees(view.amountPaise);
  const si = view.si;
  const standing = si
    ? `<dt>Standing instruction</dt><dd>₹${escape(String(si.billingAmount))} ${escape(String(si.billingCycle).toLowerCase())} from ${escape(String(si.paymentStartDate))} until ${escape(String(si.paymentEndDate))}</dd>`
    : '';
  const upi = si
    ? `<form method="post" action="_complete">
${hidden({ txnid: view.txnid, outcome: 'success', mode: 'UPI' })}
<button type="submit" class="primary">Pay ${escape(amount)} with UPI AutoPay (success)</button>
</form>`
    : '';
  return page(
    'PayU checkout',
    `<section class="payu-checkout">
<dl class="payu-summary">
  <dt>Merchant</dt><dd>${escape(view.merchant)} <span class="payu-muted">(key ${escape(view.key)})</span></dd>
  <dt>Amount</dt><dd class="payu-amount">${escape(amount)}</dd>
  <dt>Product</dt><dd>${escape(view.productinfo)}</dd>
  <dt>Name</dt><dd>${escape(view.firstname)}</dd>
  <dt>Email</dt><dd>${escape(view.email)}</dd>
  <dt>Phone</dt><dd>${escape(view.phone)}</dd>
  <dt>Transaction</dt><dd><code>${escape(view.txnid)}</code></dd>
  ${standing}
</dl>
<div class="payu-actions">
${upi}
<form method="post" action="_complete">
${hidden({ txnid: view.txnid, outcome: 'success' })}
<button type="submit" class="primary">Pay ${escape(amount)} (success)</button>
</form>
<form method="post" action="_complete">
${hidden({ txnid: view.txnid, outcome: 'failure' })}
<button type="submit" class="danger">Fail payment</button>
</form>
</div>
<p class="payu-muted">No card is asked for: the first button completes the payment as PayU would, the second fails it.</p>
</section>`,
  );
}

/**
 * PayU's own last step: a form of the response fields posted to surl or furl. autosubmit.js
 * submits it on load; the button is there for a browser without scripts.
 */
export function returnPage(
  outcome: 'success' | 'failure',
  url: string,
  fields: Record<string, string>,
): string {
  return page(
    outcome === 'success' ? 'Payment successful' : 'Payment failed',
    `<p>${outcome === 'success' ? 'The payment went through.' : 'The payment failed.'} Taking you back to the merchant…</p>
<form method="post" action="${escape(url)}" data-autosubmit>
${hidden(fields)}
<button type="submit" class="primary">Continue to merchant</button>
</form>
<script src="autosubmit.js" defer></script>`,
  );
}

export function errorPage(reason: string): string {
  return page(
    'Sorry, some problem occurred',
    `<div class="payu-error">
<p><strong>Error Reason:</strong> ${escape(reason)}</p>
<p class="payu-muted">This is how PayU refuses a checkout it cannot accept. Nothing was charged.</p>
</div>`,
  );
}

export const AUTOSUBMIT_JS = `// Sandbox PayU: carry the browser on to the merchant, as PayU's own page does.
const form = document.querySelector('form[data-autosubmit]');
if (form instanceof HTMLFormElement) form.submit();
`;
