import { z } from 'zod';
import { AUTOPAY_NOTICE_MINUTES_DEFAULT, AUTOPAY_NOTICE_MINUTES_PRODUCTION_MIN } from '../domain/autopay.ts';

/**
 * AutoPay (plans that renew themselves through PayU standing instructions): whether the PayU
 * merchant account has the SI product, and the pre-debit notice lead. `core/config/config.ts`
 * merges `AUTOPAY_ENV` into its schema and calls `parseAutopayConfig` once.
 */
export const AUTOPAY_ENV = {
  // PayU enables standing instructions (recurring payments) per merchant account.
  PAYU_SI_ENABLED: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      'AutoPay (plans that renew themselves): offered and registered only when `true`; production refuses it otherwise. See [docs/autopay.md](autopay.md). Default: `true` against the sandbox, else `false`. Production: `true` once PayU has enabled standing instructions on the merchant account.',
    ),
  // PayU asks for the pre-debit notice 48 h ahead.
  AUTOPAY_NOTICE_MINUTES: z.coerce
    .number()
    .int()
    .min(1)
    .max(14 * 24 * 60)
    .default(AUTOPAY_NOTICE_MINUTES_DEFAULT)
    .describe(
      'How long before each AutoPay debit the pre-debit notice goes. Default: `2880` (48 h). Production: ≥ `2880` (refuses to start below).',
    ),
};

type AutopayEnv = { PAYU_SI_ENABLED?: 'true' | 'false' | undefined; AUTOPAY_NOTICE_MINUTES: number };

export type AutopayConfig = {
  /** AutoPay is offered and registered only when true. */
  enabled: boolean;
  noticeMinutes: number;
};

/** Throws with the reason when production would run AutoPay below PayU's notice lead. */
export function parseAutopayConfig(
  env: AutopayEnv,
  context: { production: boolean; payuSandbox: boolean },
): AutopayConfig {
  if (context.production && env.AUTOPAY_NOTICE_MINUTES < AUTOPAY_NOTICE_MINUTES_PRODUCTION_MIN) {
    throw new Error(
      `AUTOPAY_NOTICE_MINUTES is ${env.AUTOPAY_NOTICE_MINUTES}: production refuses a pre-debit notice less than ${AUTOPAY_NOTICE_MINUTES_PRODUCTION_MIN} minutes (48 hours, PayU's rule) before each debit.`,
    );
  }
  // The sandbox plays SI; a real merchant account has it only when PayU enabled it and we say so.
  const enabled = env.PAYU_SI_ENABLED === undefined ? context.payuSandbox : env.PAYU_SI_ENABLED === 'true';
  return { enabled, noticeMinutes: env.AUTOPAY_NOTICE_MINUTES };
}
