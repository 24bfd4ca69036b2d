import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { loadConfig, requireDatabaseUrl } from '../core/config/config.ts';
import { createSmokeRun, endSmokeRun, findSmokeRun, recordSmokeInstance } from '../core/db/imageSmokeRuns.ts';
import { createDbPool } from '../core/db/pool.ts';
import {
  SMOKE_CHECKS,
  smokeCostNote,
  smokeDecision,
  smokeLine,
  smokeVerdicts,
  startSmokeProgress,
  trackSmoke,
  SMOKE_RUN_MAX_MINUTES,
  SMOKE_CHECK_LABELS,
  type PasswordState,
  type SmokeOutcome,
} from '../core/domain/imageSmoke.ts';
import { subnetForAttempt } from '../core/domain/machineProvisioning.ts';
import { MACHINE_HEALTH_PATH, type MachineHealthReport } from '../core/domain/machineHealth.ts';
import { findPlan, PLANS, type Plan } from '../core/domain/plans.ts';
import type { Ec2Instance } from '../core/providers/ec2.ts';
import { createVmEc2, smokeTags } from '../core/providers/vmEc2.ts';
import { decryptWindowsPassword, WindowsPasswordError } from '../core/providers/windowsPassword.ts';
import { describeEc2Error, isRetryableCapacity } from '../worker/ec2Errors.ts';
import { userDataFor } from '../worker/machineSetup.ts';

/**
 * `npm run aws:smoke -- --ami <id> [--plan LEGEND] --yes`: a real machine's verdict on an image,
 * before a customer gets it. With the worker's environment it launches one machine from the image
 * with the product's own launch (the plan's instance type and disk, our security group, key pair,
 * instance profile and tags, and user data carrying the machine's own secrets: worker/machineSetup.ts),
 * waits for the signed health report the machine sends to PUBLIC_URL (the deployed site, which
 * records it for this run), prints one line per check with the minutes it took, and terminates the
 * machine: at the end, on Ctrl-C, and on every failure. With no AWS settings it runs the same way
 * against the sandbox EC2 of a running `npm start`.
 *
 * Exit codes: 0 every check passed; 1 a check failed, no report came, or the launch failed;
 * 2 refused (no --yes, bad arguments); 130 interrupted.
 */

const USAGE = `usage: npm run aws:smoke -- --ami <ami-id> [--plan LEGEND] [--yes]
  --ami               the image to prove (what EC2_AMI_ID or EC2_AMI_<PLAN> would name)
  --plan              the plan whose instance type and disk the machine gets (default LEGEND)
  --yes               go ahead: launches one machine, which costs money (the cost is printed first)
  --deadline-minutes  give up when no health report came by then (default 40)
  --settle-minutes    after the first report, how long failing checks may take to pass (default 10)`;

const EXIT = { passed: 0, failed: 1, refused: 2, interrupted: 130 } as const;

function refuse(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(EXIT.refused);
}

function minutesArg(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const minutes = Number(value);
  if (!Number.isFinite(minutes) || minutes <= 0 || minutes > SMOKE_RUN_MAX_MINUTES - 30)
    refuse(`--${name} must be a number of minutes above 0 and at most ${SMOKE_RUN_MAX_MINUTES - 30}.`);
  return minutes;
}

const OPTIONS = {
  ami: { type: 'string' },
  plan: { type: 'string' },
  yes: { type: 'boolean' },
  'deadline-minutes': { type: 'string' },
  'settle-minutes': { type: 'string' },
} as const;

function parse() {
  try {
    return parseArgs({ options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return refuse((error as Error).message);
  }
}

const args = parse();
const imageId =
  args.ami && /^ami-[0-9a-f]{8,17}$/.test(args.ami)
    ? args.ami
    : refuse('--ami must be an image id such as ami-0123456789abcdef0.');
const plan: Plan =
  findPlan(args.plan ?? 'legend') ??
  refuse(`--plan must be one of ${PLANS.map((p) => p.displayName).join(', ')}.`);
const deadlineMinutes = minutesArg(args['deadline-minutes'], 40, 'deadline-minutes');
const settleMinutes = minutesArg(args['settle-minutes'], 10, 'settle-minutes');

const config = loadConfig();
const ec2Config = config.ec2;
console.log(
  smokeCostNote({
    instanceType: plan.instanceType,
    planName: plan.displayName,
    imageId,
    region: ec2Config.region,
    volumeGb: plan.storageGb,
    deadlineMinutes,
  }),
);
if (ec2Config.mode === 'sandbox')
  console.log(
    `(No AWS settings: this runs against the sandbox EC2 at ${ec2Config.endpoint ?? ''}; npm start must be running.)`,
  );
if (!args.yes) {
  console.log('Nothing was launched. Run again with --yes to go ahead.');
  process.exit(EXIT.refused);
}

// Ctrl-C (or a stop from a supervisor) ends the run, never the cleanup: the machine is terminated first.
let interrupted = false;
let wake: () => void = () => {};
let cleaningUp = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (cleaningUp) {
      console.log('Still terminating the machine: wait for it.');
      return;
    }
    interrupted = true;
    console.log(`\n${signal}: ending the run and terminating the machine…`);
    wake();
  });
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      wake = () => {};
      resolve();
    }
    wake = done;
  });
}

const db = await createDbPool(requireDatabaseUrl(config), { maximumPoolSize: 2 });
const vmEc2 = createVmEc2(ec2Config);
const runId = randomUUID();
const startedAt = Date.now();
const minutes = () => (Date.now() - startedAt) / 60_000;
const at = () => `${minutes().toFixed(1)} min`;
let instanceId: string | null = null;
let outcome: SmokeOutcome = 'failed';

try {
  outcome = await run();
} catch (error) {
  console.error(`The run failed: ${describeEc2Error(error)}`);
  outcome = interrupted ? 'interrupted' : 'failed';
} finally {
  cleaningUp = true;
  const terminated = await terminate();
  try {
    await endSmokeRun(db, runId, outcome, new Date());
  } catch (error) {
    // The machine is gone (or named above); the run's row stays open until the sweep's limit.
    console.error(`Could not record the run's end: ${(error as Error).message}`);
  }
  await db.end();
  vmEc2.destroy();
  process.exitCode = !terminated
    ? EXIT.failed
    : outcome === 'passed'
      ? EXIT.passed
      : outcome === 'interrupted'
        ? EXIT.interrupted
        : EXIT.failed;
}

/** Launches, waits for the verdict, prints it. What the run ended as; the caller terminates. */
async function run(): Promise<SmokeOutcome> {
  await createSmokeRun(db, {
    id: runId,
    imageId,
    planId: plan.id,
    instanceType: plan.instanceType,
    startedAt: new Date(startedAt),
  });
  const launched = await launch();
  if (!launched) return interrupted ? 'interrupted' : 'launch-failed';
  instanceId = launched.instanceId;
  await recordSmokeInstance(db, runId, { instanceId, publicIp: null });
  console.log(`Launched ${instanceId}; waiting for it to run.`);

  const healthUrl = `${config.publicUrl}${MACHINE_HEALTH_PATH}`;
  let address: string | null = null;
  let progress = startSmokeProgress();
  let firstReportAt: number | null = null;
  let password: PasswordState = { state: 'pending' };
  let lastNote = Date.now();
  const pollMs = Math.max(500, config.vm.pollSeconds * 1000);

  for (;;) {
    if (interrupted) return 'interrupted';
    if (!address) {
      const [seen] = await vmEc2.ec2.describeInstances({ instanceIds: [instanceId] });
      if (seen?.state === 'terminated' || seen?.state === 'shutting-down') {
        console.log(`${instanceId} was terminated by someone else (${at()}).`);
        return 'failed';
      }
      if (seen?.state === 'running' && seen.publicIp) {
        address = seen.publicIp;
        await recordSmokeInstance(db, runId, { instanceId, publicIp: address });
        console.log(
          `${instanceId} runs at ${address} (${at()}); waiting for its signed health report to ${healthUrl}.`,
        );
      }
    }
    if (address) {
      if (password.state !== 'ready') password = await passwordState(instanceId);
      const row = await findSmokeRun(db, runId);
      const report = (row?.report ?? null) as MachineHealthReport | null;
      if (report && firstReportAt === null) {
        firstReportAt = Date.now();
        console.log(`First health report (${at()}).`);
      }
      progress = trackSmoke(
        progress,
        smokeVerdicts({ report, instanceType: plan.instanceType, volumeGb: plan.storageGb, password }),
        minutes(),
      );
    }
    const decision = smokeDecision({
      progress,
      minutesSinceLaunch: minutes(),
      minutesSinceFirstReport: firstReportAt === null ? null : (Date.now() - firstReportAt) / 60_000,
      deadlineMinutes,
      settleMinutes,
    });
    if (decision.kind !== 'wait') {
      console.log('');
      for (const check of SMOKE_CHECKS) console.log(smokeLine(check, progress[check]));
      console.log('');
      if (decision.kind === 'pass') {
        console.log(`PASSED: every check passed (${at()}).`);
        return 'passed';
      }
      console.log(`FAILED: ${decision.reason} (${at()}).`);
      return decision.outcome;
    }
    // Every long wait shows progress: what is still failing, once a minute.
    if (Date.now() - lastNote >= 60_000) {
      lastNote = Date.now();
      const failing = SMOKE_CHECKS.filter((c) => !progress[c].last.ok).map((c) => SMOKE_CHECK_LABELS[c]);
      console.log(
        `Waiting (${at()}): ${address ? `not yet passing: ${failing.join(', ')}` : 'the instance is not running yet'}.`,
      );
    }
    await pause(pollMs);
  }
}

/** RunInstances as the product launches: the plan's type and disk, our tags, the machine's own user data. */
async function launch(): Promise<Ec2Instance | null> {
  const userData = await userDataFor({ db, config }, runId);
  const attempts = ec2Config.subnetIds.length + ec2Config.fallbackSubnetIds.length;
  for (let attempt = 0; attempt < Math.max(1, attempts); attempt += 1) {
    if (interrupted) return null;
    const subnetId = subnetForAttempt(ec2Config, attempt, config.vm.launchAttemptsBeforeFallback);
    console.log(`Launching ${plan.instanceType} from ${imageId} in ${subnetId} (run ${runId}).`);
    try {
      return await vmEc2.launcher.launchInstance({
        clientToken: runId,
        instanceType: plan.instanceType,
        imageId,
        keyName: ec2Config.keyName,
        securityGroupIds: ec2Config.securityGroupIds,
        subnetId,
        volumeSizeGb: plan.storageGb,
        tags: smokeTags(ec2Config, { id: runId, planId: plan.id }),
        userData,
      });
    } catch (error) {
      if ((error as { name?: string }).name === 'IdempotentParameterMismatch') {
        // An earlier attempt did launch (its answer was lost): that instance is this run's.
        const found = (await vmEc2.ec2.findByClientTokens([runId])).get(runId);
        if (found) return found;
      }
      console.log(`Launch attempt ${attempt + 1} failed: ${describeEc2Error(error)}`);
      if (!isRetryableCapacity(error)) break;
    }
  }
  // A launch whose answer was lost may still have made an instance: find it, so it is terminated.
  const orphan = (await vmEc2.ec2.findByClientTokens([runId])).get(runId);
  if (orphan) {
    instanceId = orphan.instanceId;
    await recordSmokeInstance(db, runId, { instanceId, publicIp: null });
  }
  return null;
}

/** GetPasswordData, decrypted with EC2_PRIVATE_KEY_PEM as the worker does for customers. */
async function passwordState(id: string): Promise<PasswordState> {
  const key = ec2Config.privateKeyPem;
  if (!key)
    return { state: 'failed', error: 'EC2_PRIVATE_KEY_PEM is not set: the password cannot be checked' };
  try {
    const { passwordData } = await vmEc2.ec2.getPasswordData(id);
    return decryptWindowsPassword(passwordData, key).status === 'ready'
      ? { state: 'ready' }
      : { state: 'pending' };
  } catch (error) {
    if (error instanceof WindowsPasswordError)
      return {
        state: 'failed',
        error: `the password does not decrypt with EC2_PRIVATE_KEY_PEM (${error.reason})`,
      };
    return { state: 'failed', error: `GetPasswordData: ${describeEc2Error(error)}` };
  }
}

/** Terminates the run's instance, trying three times; false when it may still be running. */
async function terminate(): Promise<boolean> {
  if (!instanceId) {
    // The launch's answer may have been lost in an interrupted call: look once more by ClientToken.
    try {
      const found = (await vmEc2.ec2.findByClientTokens([runId])).get(runId);
      if (found && found.state !== 'terminated' && found.state !== 'shutting-down')
        instanceId = found.instanceId;
    } catch (error) {
      console.error(`Could not look for the run's instance: ${describeEc2Error(error)}`);
      console.error(`Look for instances tagged legend:smoke=${runId} and terminate them.`);
      return false;
    }
    if (!instanceId) return true;
  }
  for (let attempt = 1; attempt <= 3; attempt += 1) {
    try {
      const change = await vmEc2.ec2.terminateInstance(instanceId);
      console.log(`Terminated ${instanceId} (${change.current}).`);
      return true;
    } catch (error) {
      console.error(`Terminating ${instanceId} failed (attempt ${attempt} of 3): ${describeEc2Error(error)}`);
      if (attempt < 3) await new Promise((resolve) => setTimeout(resolve, 2_000 * attempt));
    }
  }
  console.error(
    `${instanceId} MAY STILL BE RUNNING: terminate it by hand (aws ec2 terminate-instances --instance-ids ${instanceId}). ` +
      `Otherwise the worker's orphan sweep reports it ${SMOKE_RUN_MAX_MINUTES} minutes after the run began and terminates it ORPHAN_GRACE_MINUTES later.`,
  );
  return false;
}
