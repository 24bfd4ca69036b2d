import { ConfigError, loadConfig, type Config } from '../core/config/config.ts';
import { fastLaunchVerdict } from '../core/domain/imageChecks.ts';
import { CARD_PLANS } from '../core/domain/plans.ts';
import { formatPreflight, runPreflight } from '../core/providers/awsPreflight.ts';
import { describeFastLaunch } from '../core/providers/fastLaunch.ts';
import { checkMachineNames } from '../core/providers/machineNamePreflight.ts';

/**
 * `npm run aws:check`: with the worker's environment, asks the AWS account everything a first
 * launch needs and prints one OK or FAIL line per check, each FAIL with its fix; exits 1 on any
 * FAIL. Every service is asked where the configuration says (EC2_ENDPOINT, SERVICE_QUOTAS_ENDPOINT,
 * or what is derived from EC2_ENDPOINT). With no AWS settings (development) it asks the sandbox
 * of a running `npm start` at SANDBOX_URL. A configuration it cannot read, or a failure of its
 * own, is one sentence, as `npm start` says it: never a stack trace.
 */

/** Stops with one sentence (no stack trace) for what the person running this can fix. */
function fail(message: string): never {
  console.error(message.replace(/\n\s*-\s*/g, ' ').trim());
  process.exit(1);
}

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fail(`aws:check cannot start: ${error.message}`);
  fail(`aws:check cannot read its configuration: ${(error as Error).message}`);
}
const ec2 = config.ec2;
if (ec2.mode === 'sandbox') {
  console.log(
    `checking the sandbox EC2 at ${ec2.endpoint ?? ''} (no AWS settings; npm start must be running)`,
  );
} else {
  console.log(`checking AWS ${ec2.region}${ec2.endpoint ? ` via ${ec2.endpoint}` : ''}`);
}
try {
  const results = await runPreflight({
    client: {
      region: ec2.region,
      endpoint: ec2.endpoint,
      credentials: ec2.credentials,
      requestTimeoutMs: 10_000,
    },
    serviceQuotasEndpoint: ec2.serviceQuotasEndpoint,
    iamEndpoint: ec2.iamEndpoint,
    mode: ec2.mode,
    sandboxUrl: ec2.mode === 'sandbox' ? config.sandbox.url : undefined,
    plans: CARD_PLANS.map((plan) => ({
      id: plan.id,
      instanceType: plan.instanceType,
      imageId: ec2.amiByPlan[plan.id],
      volumeSizeGb: plan.storageGb,
    })),
    subnetIds: ec2.subnetIds,
    fallbackSubnetIds: ec2.fallbackSubnetIds,
    securityGroupIds: ec2.securityGroupIds,
    keyName: ec2.keyName,
    privateKeyPem: ec2.privateKeyPem,
    instanceProfile: ec2.instanceProfile,
    rdpPort: config.vm.rdpPort,
    workerEgressCidrs: ec2.workerEgressCidrs,
    capacityLimits: config.capacityLimits,
    deploymentTag: ec2.deploymentTag,
  });
  // The machines' DNS names: their own questions, after EC2's.
  results.push(...(await checkMachineNames(config.machineNames, { mode: ec2.mode })));
  console.log(formatPreflight(results));
  const failures = results.filter((r) => !r.ok).length + (await checkFastLaunch());
  console.log(failures === 0 ? 'all checks passed' : `${failures} check(s) failed`);
  process.exitCode = failures === 0 ? 0 : 1;
} catch (error) {
  fail(`aws:check stopped: ${(error as Error).message ?? String(error)}`);
}

/**
 * EC2 Fast Launch (infra/README.md, "The image"): one line per image the card plans launch, on
 * when EC2 keeps pre-provisioned snapshots of it. Answers how many lines failed.
 */
async function checkFastLaunch(): Promise<number> {
  const plansOf = new Map<string, string[]>();
  for (const plan of CARD_PLANS) {
    const imageId = ec2.amiByPlan[plan.id];
    plansOf.set(imageId, [...(plansOf.get(imageId) ?? []), plan.id]);
  }
  const check = 'EC2 Fast Launch';
  try {
    const states = await describeFastLaunch(
      { region: ec2.region, endpoint: ec2.endpoint, credentials: ec2.credentials, requestTimeoutMs: 10_000 },
      [...plansOf.keys()],
    );
    const lines = [...plansOf].map(([imageId, planIds]) => ({
      check,
      ...fastLaunchVerdict(imageId, planIds, states.get(imageId) ?? null),
    }));
    console.log(formatPreflight(lines));
    return lines.filter((line) => !line.ok).length;
  } catch (error) {
    const name = (error as { name?: string }).name ?? 'Error';
    const denied = name === 'UnauthorizedOperation' || name === 'AccessDenied';
    console.log(
      formatPreflight([
        {
          check,
          ok: false,
          detail: `${denied ? 'denied' : name}: ${(error as Error).message}`,
          fix: denied
            ? 'attach infra/iam/worker-policy.json to the worker role (it grants ec2:DescribeFastLaunchImages)'
            : 'run npm run aws:check again; if it persists, check the EC2 endpoint',
        },
      ]),
    );
    return 1;
  }
}
