import Koa from 'koa';
import { createSandbox } from '../../sandbox/index.ts';
import { createSandboxEc2 } from '../../sandbox/ec2/index.ts';
import { listenOnLoopback } from './listen.ts';

/**
 * The outside world for the poll and burst benchmark, in a process of its own: PayU (checkout,
 * verify API, webhooks), EC2, CloudWatch and the mail catcher. In production these are other
 * companies' servers, so their work must not share the web process's event loop while the
 * bench measures that process's latency (`npm start` mounts them in the web process for
 * convenience; here that would charge PayU's and EC2's work to the dashboard poll).
 *
 * Started by scripts/bench/pollServer.ts with WEBHOOK_URL (where PayU posts its webhook) and
 * PAYU_KEY / PAYU_SALT (the merchant it plays for); prints one JSON line with its port and the
 * EC2 stand-in's key pair (the worker decrypts Windows passwords with it).
 */

const webhookUrl = process.env.WEBHOOK_URL;
const key = process.env.PAYU_KEY;
const salt = process.env.PAYU_SALT;
if (!webhookUrl || !key || !salt) throw new Error('sandboxServer needs WEBHOOK_URL, PAYU_KEY and PAYU_SALT');

const ec2 = createSandboxEc2({ profile: 'fast' });
const sandbox = createSandbox({ profile: 'fast', ec2, payu: { key, salt, webhookUrl } });
const app = new Koa();
app.use(sandbox);
const server = await listenOnLoopback(app.callback());
console.log(
  JSON.stringify({
    port: server.port,
    ec2PrivateKeyPem: ec2.defaultPrivateKeyPem(),
  }),
);

process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void ec2.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('sandboxServer: shutting down failed', error);
      process.exit(1);
    },
  );
});
