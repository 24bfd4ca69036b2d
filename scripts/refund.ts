import { loadConfig, requireDatabaseUrl } from '../core/config/config.ts';
import { createDbPool } from '../core/db/pool.ts';
import { formatRupees, parseRupeeAmount } from '../core/domain/money.ts';
import { startBoss } from '../core/queue.ts';
import { executeRefund, quote, RefundError, type Quote } from './lib/refunds.ts';

const USAGE = `usage: npm run refund -- <command>
  quote <txnid|invoice-number>          what the refund policy gives back today
  execute <txnid> [--amount <rupees>]   queue a refund (the quote, or the amount given): the
                                        worker's payment-refund job asks PayU and follows it
Running execute again is safe: a refund already requested is reported and nothing is queued.
The refund's progress shows in the customer's history and in npm run jobs.`;

function printQuote(q: Quote): void {
  console.log(
    [
      `payment ${q.txnid}${q.invoiceNumber ? ` (invoice ${q.invoiceNumber})` : ''}`,
      `  paid              ${formatRupees(q.paidPaise)}`,
      `  already refunded  ${formatRupees(q.alreadyRefundedPaise)}`,
      `  basis             ${q.basis}`,
      `  policy            ${q.quote.percent}% of the amount = ${formatRupees(q.quote.grossPaise)}, charge ${formatRupees(q.quote.chargePaise)}`,
      `  refund            ${formatRupees(q.quote.refundPaise)}`,
    ].join('\n'),
  );
}

const [command, reference, ...rest] = process.argv.slice(2);
const config = loadConfig();
const db = await createDbPool(requireDatabaseUrl(config), { maximumPoolSize: 2 });
let exitCode = 0;

try {
  if (command === 'quote' && reference) {
    printQuote(await quote(db, config, reference));
  } else if (command === 'execute' && reference) {
    let amountPaise: number | undefined;
    const flag = rest.indexOf('--amount');
    if (flag >= 0) {
      const text = rest[flag + 1] ?? '';
      const parsed = parseRupeeAmount(text);
      if (parsed === null || parsed <= 0)
        throw new RefundError(`--amount wants rupees like 1450 or 1450.50, got "${text}"`);
      amountPaise = parsed;
    }
    const boss = await startBoss(requireDatabaseUrl(config), 'script');
    try {
      const result = await executeRefund(db, boss, config, reference, { amountPaise });
      if (result.kind === 'queued') {
        console.log(
          `queued a refund of ${formatRupees(result.refund.amount_paise)} of ${reference} (token ${result.refund.token}): the worker takes it to PayU`,
        );
      } else {
        console.log(
          `already requested: ${formatRupees(result.refund.amount_paise)} (token ${result.refund.token}, ${result.refund.status}); nothing done`,
        );
      }
    } finally {
      await boss.stop({ graceful: false });
    }
  } else {
    console.log(USAGE);
    exitCode = command === undefined || command === 'help' || command === '--help' ? 0 : 2;
  }
} catch (error) {
  console.error(`refund: ${(error as Error).message}`);
  exitCode = 1;
} finally {
  await db.end();
}
process.exit(exitCode);
