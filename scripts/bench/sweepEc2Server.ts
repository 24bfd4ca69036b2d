import Koa from 'koa';
import Router from '@koa/router';
import { createSandboxEc2 } from '../../sandbox/ec2/index.ts';
import { listenOnLoopback } from './listen.ts';

/**
 * The sandbox EC2 for the sweep benchmark, in a process of its own: EC2 answers from elsewhere
 * in production, so its work (rendering pages of 1,000 instances) must not share the event loop
 * being timed. Started by scripts/bench/sweep.ts with BENCH_SWEEP_CAPACITY; prints one JSON line
 * with its port and the default key pair's private key; steered through /_control like the demo.
 */
const sandboxEc2 = createSandboxEc2({
  profile: 'fast',
  vcpuLimit: null,
  defaultCapacity: Number(process.env.BENCH_SWEEP_CAPACITY ?? 20_000),
});
const app = new Koa();
const router = new Router();
router.use('/sandbox/ec2', sandboxEc2.router.routes(), sandboxEc2.router.allowedMethods());
app.use(router.routes());
const server = await listenOnLoopback(app.callback());
console.log(
  JSON.stringify({
    port: server.port,
    privateKeyPem: sandboxEc2.defaultPrivateKeyPem(),
  }),
);
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close();
  void sandboxEc2.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('sweepEc2Server: shutting down failed', error);
      process.exit(1);
    },
  );
});
