import { createHash, randomInt } from 'node:crypto';

/**
 * PayU's wire rules as PayU applies them, written out independently of the app's client
 * (the sandbox imports nothing of ours, so a mistake on one side shows up as a hash mismatch).
 */

export function sha512(input: string): string {
  return createHash('sha512').update(input, 'utf8').digest('hex');
}

export type CheckoutFields = {
  key: string;
  txnid: string;
  amount: string;
  productinfo: string;
  firstname: string;
  email: string;
  phone: string;
  surl: string;
  furl: string;
  udf1: string;
  udf2: string;
  udf3: string;
  udf4: string;
  udf5: string;
};

/** key|txnid|amount|productinfo|firstname|email|udf1..udf5||||||SALT, with si_details before the salt on an SI registration. */
export function requestHash(f: CheckoutFields, salt: string, siDetails?: string): string {
  return sha512(
    [
      f.key,
      f.txnid,
      f.amount,
      f.productinfo,
      f.firstname,
      f.email,
      f.udf1,
      f.udf2,
      f.udf3,
      f.udf4,
      f.udf5,
      '',
      '',
      '',
      '',
      '',
      ...(siDetails === undefined ? [] : [siDetails]),
      salt,
    ].join('|'),
  );
}

/** [additionalCharges|]SALT|status||||||udf5|udf4|udf3|udf2|udf1|email|firstname|productinfo|amount|txnid|key */
export function reverseHash(fields: Record<string, string>, salt: string): string {
  const f = (name: string) => fields[name] ?? '';
  const parts = [
    salt,
    f('status'),
    '',
    '',
    '',
    '',
    '',
    f('udf5'),
    f('udf4'),
    f('udf3'),
    f('udf2'),
    f('udf1'),
    f('email'),
    f('firstname'),
    f('productinfo'),
    f('amount'),
    f('txnid'),
    f('key'),
  ];
  const charges = fields.additionalCharges || fields.additional_charges;
  if (charges) parts.unshift(charges);
  return sha512(parts.join('|'));
}

/** sha512(key|command|var1|SALT), the hash of every postservice call. */
export function commandHash(key: string, command: string, var1: string, salt: string): string {
  return sha512(`${key}|${command}|${var1}|${salt}`);
}

const AMOUNT = /^(\d{1,10})(?:\.(\d{1,2}))?$/;

/** '1450', '1450.5', '1450.50' → paise; null for anything PayU would refuse as an amount. */
export function amountToPaise(amount: string): number | null {
  const match = AMOUNT.exec(amount);
  if (!match) return null;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

/** Paise → PayU's two-decimal rendering, as it echoes amounts back ('1450' → '1450.00'). */
export function paiseToAmount(paise: number): string {
  return `${Math.floor(paise / 100)}.${String(paise % 100).padStart(2, '0')}`;
}

/** 18 digits like PayU's ids (403993715521889530); unique within this sandbox's lifetime. */
export function newMihpayid(taken: (id: string) => boolean): string {
  for (;;) {
    const id = `4039937${String(randomInt(0, 1e11)).padStart(11, '0')}`;
    if (!taken(id)) return id;
  }
}

export function digits(count: number): string {
  let out = '';
  for (let i = 0; i < count; i++) out += String(randomInt(0, 10));
  return out;
}

/** PayU's `addedon`: local time in India, 'YYYY-MM-DD HH:mm:ss'. */
export function addedOn(at: Date): string {
  const ist = new Date(at.getTime() + 330 * 60_000);
  return ist.toISOString().slice(0, 19).replace('T', ' ');
}

/**
 * PayU's answer to verify_payment (and verify_si_payment) for `var1` (txnids joined with "|"):
 * each txnid's entry, or "Not Found". `entryOf` answers a known transaction's entry (and may
 * count the question), or undefined.
 */
export function verifyAnswer(
  var1: string,
  entryOf: (txnid: string) => Record<string, unknown> | undefined,
): Record<string, unknown> {
  const txnids = var1.split('|').filter((t) => t !== '');
  const details: Record<string, unknown> = {};
  let found = 0;
  for (const txnid of txnids) {
    const entry = entryOf(txnid);
    if (entry) found++;
    details[txnid] = entry ?? { mihpayid: 'Not Found', status: 'Not Found' };
  }
  return {
    status: found > 0 ? 1 : 0,
    msg: `${found} out of ${txnids.length} Transactions Fetched Successfully`,
    transaction_details: details,
  };
}
