import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import {
  DescribeImagesCommand,
  DescribeInstanceTypeOfferingsCommand,
  DescribeInstanceTypesCommand,
  DescribeKeyPairsCommand,
  DescribeRegionsCommand,
  DescribeSecurityGroupsCommand,
  DescribeSubnetsCommand,
  type _InstanceType,
  type IpPermission,
} from '@aws-sdk/client-ec2';
import { GetInstanceProfileCommand, IAMClient } from '@aws-sdk/client-iam';
import { GetServiceQuotaCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { awsClientConfig, type AwsClientOptions } from './awsClientConfig.ts';
import { createEc2Client, type LaunchInput } from './ec2.ts';
import { DCV_PORT } from '../domain/desktop.ts';
import { streamingIngressResults } from '../domain/streaming.ts';

/**
 * The questions an operator's AWS account must answer before the first customer pays: can the
 * worker's credentials reach the region, are the images Windows, are the GPU types offered
 * where we launch, does the vCPU quota cover what we sell, does the security group let Remote
 * Desktop in, does the key pair exist, does the instance profile exist, and would a launch be
 * allowed (RunInstances DryRun). Every check ends in one OK or FAIL line with the fix (one
 * sentence, never a stack trace); none changes anything in the account. Each service is asked at
 * the endpoint the configuration names (EC2_ENDPOINT, SERVICE_QUOTAS_ENDPOINT or what is derived
 * from EC2_ENDPOINT: core/config/vmConfig.ts `deriveEndpoint`).
 */

export type PreflightInput = {
  client: AwsClientOptions;
  /**
   * The Service Quotas endpoint (SERVICE_QUOTAS_ENDPOINT, or derived from EC2_ENDPOINT); unset
   * means AWS's own; null: EC2_ENDPOINT names no other service and none was given.
   */
  serviceQuotasEndpoint?: string | null | undefined;
  /** The IAM endpoint, derived from EC2_ENDPOINT; unset means AWS's own (global). */
  iamEndpoint?: string | undefined;
  /** Whether the account is AWS (an instance profile is then required) or the sandbox. */
  mode: 'aws' | 'sandbox';
  /** Where the sandbox runs, in sandbox mode: an endpoint under it that does not answer means the sandbox is not running. */
  sandboxUrl?: string | undefined;
  /** The plans sold now: what each launches. */
  plans: Array<{ id: string; instanceType: string; imageId: string; volumeSizeGb: number }>;
  subnetIds: string[];
  fallbackSubnetIds: string[];
  securityGroupIds: string[];
  keyName: string;
  privateKeyPem: string | null;
  instanceProfile: string | null;
  rdpPort: number;
  /** Where the worker calls the machines' Sunshine from (WORKER_EGRESS_CIDRS). */
  workerEgressCidrs: string[];
  /** Machines of each type we may have in use at once (CAPACITY_LIMITS). */
  capacityLimits: Record<string, number>;
  deploymentTag: string;
};

export type PreflightResult = { check: string; ok: boolean; detail: string; fix?: string | undefined };

/** Running On-Demand G and VT instances, in vCPUs (Service Quotas code). */
export const G_VCPU_QUOTA_CODE = 'L-DB2E81BA';

const POLICY_HINT = 'attach infra/iam/worker-policy.json to the worker role (see infra/README.md)';

function errorCode(error: unknown): string {
  const name = (error as { name?: unknown }).name;
  return typeof name === 'string' ? name : 'Error';
}

/** An error's message on one line (an SDK message can span several, or carry a raw body). */
function oneLine(error: unknown): string {
  const message = (error as Error)?.message ?? String(error);
  return message.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** What to do about a failed call: IAM denials name the policy, the rest the error. */
function failed(
  check: string,
  error: unknown,
  otherwise: string,
  where: {
    mode: 'aws' | 'sandbox';
    endpoint?: string | undefined;
    endpointVar?: string | undefined;
    sandboxUrl?: string | undefined;
  } = { mode: 'aws' },
): PreflightResult {
  const code = errorCode(error);
  const message = oneLine(error);
  if (code === 'UnauthorizedOperation' || code === 'AccessDeniedException' || code === 'AccessDenied') {
    return { check, ok: false, detail: `denied: ${message}`, fix: POLICY_HINT };
  }
  if (
    code === 'CredentialsProviderError' ||
    code === 'AuthFailure' ||
    code === 'UnrecognizedClientException'
  ) {
    return {
      check,
      ok: false,
      detail: `${code}: ${message}`,
      fix: 'give the worker credentials: an instance or task role, AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
    };
  }
  const network = (error as { code?: unknown }).code;
  if (
    typeof network === 'string' &&
    /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN)$/.test(network)
  ) {
    const at = where.endpoint ? ` at ${where.endpoint}` : '';
    return {
      check,
      ok: false,
      detail: `${network}${at}: ${message}`,
      fix:
        where.mode === 'sandbox' && (!where.endpoint || where.endpoint.startsWith(where.sandboxUrl ?? '\0'))
          ? 'start the sandbox (npm start), or set SANDBOX_URL to where it runs'
          : `make the endpoint reachable from here${where.endpointVar ? `, or set ${where.endpointVar}` : ''}`,
    };
  }
  // An endpoint that answers, but not as the service would (a proxy's page, the wrong service).
  if (
    /Deserialization error|Unexpected token|not valid JSON|char 0/i.test(message) ||
    code === 'SyntaxError'
  ) {
    return {
      check,
      ok: false,
      detail: `${where.endpoint ?? "AWS's endpoint"} did not answer as the service does (${code})`,
      fix: where.endpointVar
        ? `point ${where.endpointVar} at the service's endpoint`
        : 'check the endpoint configuration',
    };
  }
  return { check, ok: false, detail: `${code}: ${message}`, fix: otherwise };
}

/** An instance profile's name, from its name or its ARN (arn:aws:iam::…:instance-profile/path/name). */
export function instanceProfileName(nameOrArn: string): string {
  return nameOrArn.startsWith('arn:') ? (nameOrArn.split('/').at(-1) ?? nameOrArn) : nameOrArn;
}

function allowsPort(permission: IpPermission, port: number): boolean {
  if (permission.IpProtocol === '-1') return true;
  if (permission.IpProtocol !== 'tcp' && permission.IpProtocol !== '6') return false;
  const from = permission.FromPort ?? 0;
  const to = permission.ToPort ?? 65535;
  const open = (permission.IpRanges?.length ?? 0) + (permission.Ipv6Ranges?.length ?? 0) > 0;
  return open && from <= port && port <= to;
}

/**
 * The fingerprints EC2 may show for the key pair whose private key this is: SHA-1 of the
 * private key (PKCS#8 DER) when EC2 created the pair, MD5 of the public key (SPKI DER) when it
 * was imported.
 */
function fingerprintsOf(privateKeyPem: string): string[] {
  const key = createPrivateKey(privateKeyPem);
  const colons = (hex: string) => hex.match(/../g)?.join(':') ?? hex;
  return [
    colons(
      createHash('sha1')
        .update(key.export({ type: 'pkcs8', format: 'der' }))
        .digest('hex'),
    ),
    colons(
      createHash('md5')
        .update(createPublicKey(key).export({ type: 'spki', format: 'der' }))
        .digest('hex'),
    ),
  ];
}

export async function runPreflight(input: PreflightInput): Promise<PreflightResult[]> {
  const ec2 = createEc2Client({ ...input.client, instanceProfile: input.instanceProfile, maxAttempts: 2 });
  const quotas = new ServiceQuotasClient(
    awsClientConfig({ ...input.client, endpoint: input.serviceQuotasEndpoint ?? undefined, maxAttempts: 2 }),
  );
  // IAM is global: signed for us-east-1 whatever the region (the SDK's own endpoint rules).
  const iam = new IAMClient(
    awsClientConfig({ ...input.client, region: 'us-east-1', endpoint: input.iamEndpoint, maxAttempts: 2 }),
  );
  const where = {
    mode: input.mode,
    endpoint: input.client.endpoint,
    endpointVar: 'EC2_ENDPOINT',
    sandboxUrl: input.sandboxUrl,
  };
  const results: PreflightResult[] = [];
  const region = input.client.region;
  try {
    // Credentials and region.
    try {
      const answer = await ec2.client.send(
        new DescribeRegionsCommand({ RegionNames: [region], AllRegions: true }),
      );
      const info = answer.Regions?.find((r) => r.RegionName === region);
      if (!info)
        throw Object.assign(new Error(`region ${region} unknown`), { name: 'InvalidParameterValue' });
      const optedOut = info.OptInStatus === 'not-opted-in';
      results.push(
        optedOut
          ? {
              check: 'credentials and region',
              ok: false,
              detail: `${region} is not enabled for this account`,
              fix: `enable ${region} under Account → AWS Regions, or set AWS_REGION`,
            }
          : { check: 'credentials and region', ok: true, detail: `${region} answers with these credentials` },
      );
    } catch (error) {
      results.push(
        failed('credentials and region', error, 'set AWS_REGION to a region such as ap-south-1', where),
      );
    }

    // Images: each distinct AMI exists, is available and is Windows.
    const plansByAmi = new Map<string, string[]>();
    for (const plan of input.plans)
      plansByAmi.set(plan.imageId, [...(plansByAmi.get(plan.imageId) ?? []), plan.id]);
    for (const [imageId, planIds] of plansByAmi) {
      const check = `AMI ${imageId} (${planIds.join(', ')})`;
      try {
        const answer = await ec2.client.send(new DescribeImagesCommand({ ImageIds: [imageId] }));
        const image = answer.Images?.[0];
        if (!image) {
          results.push({
            check,
            ok: false,
            detail: 'not found in this region',
            fix: 'build it (infra/image) or copy it here; set EC2_AMI_ID',
          });
        } else if (String(image.Platform ?? '').toLowerCase() !== 'windows') {
          results.push({
            check,
            ok: false,
            detail: `${image.Name ?? imageId} is not a Windows image`,
            fix: 'use the image infra/image builds',
          });
        } else if (image.State !== 'available') {
          results.push({
            check,
            ok: false,
            detail: `state ${image.State ?? 'unknown'}`,
            fix: 'wait for the image to become available',
          });
        } else {
          results.push({ check, ok: true, detail: `${image.Name ?? imageId}: Windows, available` });
        }
      } catch (error) {
        results.push(failed(check, error, 'check EC2_AMI_ID (or EC2_AMI_<PLAN>) and AWS_REGION', where));
      }
    }

    // Instance types offered in every zone a launch may go to: the primary subnets' and the
    // fallback subnets' (tried after capacity errors).
    const types = [...new Set(input.plans.map((p) => p.instanceType))];
    try {
      const subnets = await ec2.client.send(
        new DescribeSubnetsCommand({
          SubnetIds: [...new Set([...input.subnetIds, ...input.fallbackSubnetIds])],
        }),
      );
      const zoneOf = new Map(
        (subnets.Subnets ?? []).map((s) => [s.SubnetId ?? '', s.AvailabilityZone ?? '']),
      );
      const named = [...input.subnetIds, ...input.fallbackSubnetIds];
      const missingSubnets = named.filter((id) => !zoneOf.has(id));
      const zones = [...new Set(named.map((id) => zoneOf.get(id)).filter((z): z is string => !!z))];
      const offerings = await ec2.client.send(
        new DescribeInstanceTypeOfferingsCommand({
          LocationType: 'availability-zone',
          Filters: [
            { Name: 'instance-type', Values: types },
            { Name: 'location', Values: zones },
          ],
        }),
      );
      const offeredIn = new Set(
        (offerings.InstanceTypeOfferings ?? []).map((o) => `${o.InstanceType as string}@${o.Location ?? ''}`),
      );
      const gaps = zones.flatMap((zone) =>
        types.filter((t) => !offeredIn.has(`${t}@${zone}`)).map((t) => `${t} in ${zone}`),
      );
      results.push(
        missingSubnets.length > 0
          ? {
              check: 'instance types offered',
              ok: false,
              detail: `subnets not found: ${missingSubnets.join(', ')}`,
              fix: 'check EC2_SUBNET_IDS and EC2_FALLBACK_SUBNET_IDS',
            }
          : gaps.length > 0
            ? {
                check: 'instance types offered',
                ok: false,
                detail: `not offered: ${gaps.join(', ')}`,
                fix: 'use subnets (EC2_SUBNET_IDS, EC2_FALLBACK_SUBNET_IDS) in zones that offer every plan type',
              }
            : {
                check: 'instance types offered',
                ok: true,
                detail: `${types.join(', ')} in ${zones.join(', ')} (primary and fallback subnets)`,
              },
      );
    } catch (error) {
      results.push(
        failed('instance types offered', error, 'check EC2_SUBNET_IDS and EC2_FALLBACK_SUBNET_IDS', where),
      );
    }

    // The G-instance vCPU quota against what CAPACITY_LIMITS lets us sell.
    // Which endpoint failed decides the fix: EC2's (the types' vCPUs) or Service Quotas'.
    let asking: 'ec2' | 'servicequotas' = 'ec2';
    try {
      if (input.serviceQuotasEndpoint === null)
        throw Object.assign(new Error('EC2_ENDPOINT is a VPC endpoint of EC2 alone'), {
          name: 'NoServiceQuotasEndpoint',
        });
      const described = await ec2.client.send(
        new DescribeInstanceTypesCommand({ InstanceTypes: types as _InstanceType[] }),
      );
      const vcpus = new Map(
        (described.InstanceTypes ?? []).map((t) => [t.InstanceType as string, t.VCpuInfo?.DefaultVCpus ?? 0]),
      );
      asking = 'servicequotas';
      const quota = await quotas.send(
        new GetServiceQuotaCommand({ ServiceCode: 'ec2', QuotaCode: G_VCPU_QUOTA_CODE }),
      );
      const limit = quota.Quota?.Value ?? 0;
      const needed = types.reduce((sum, t) => sum + (input.capacityLimits[t] ?? 0) * (vcpus.get(t) ?? 0), 0);
      const largest = Math.max(0, ...types.map((t) => vcpus.get(t) ?? 0));
      const check = 'G-instance vCPU quota';
      if (limit < largest) {
        results.push({
          check,
          ok: false,
          detail: `${limit} vCPUs: not one ${types.find((t) => vcpus.get(t) === largest)} fits`,
          fix: `request at least ${needed} vCPUs for "Running On-Demand G and VT instances" (${G_VCPU_QUOTA_CODE}) in Service Quotas`,
        });
      } else if (limit < needed) {
        results.push({
          check,
          ok: false,
          detail: `${limit} vCPUs, CAPACITY_LIMITS sells machines needing ${needed}`,
          fix: `request ${needed} vCPUs (${G_VCPU_QUOTA_CODE}) in Service Quotas, or lower CAPACITY_LIMITS to fit ${limit}`,
        });
      } else {
        results.push({
          check,
          ok: true,
          detail: `${limit} vCPUs covers the ${needed} CAPACITY_LIMITS needs`,
        });
      }
    } catch (error) {
      results.push(
        errorCode(error) === 'NoServiceQuotasEndpoint'
          ? {
              check: 'G-instance vCPU quota',
              ok: false,
              detail: `EC2_ENDPOINT (${input.client.endpoint ?? ''}) names no Service Quotas endpoint to derive (a VPC endpoint's own hostname, or a host that is not ec2.<region>…)`,
              fix: "set SERVICE_QUOTAS_ENDPOINT to the Service Quotas VPC endpoint's hostname (or AWS's https://servicequotas.<region>.amazonaws.com)",
            }
          : failed(
              'G-instance vCPU quota',
              error,
              'check the region and Service Quotas access',
              asking === 'ec2'
                ? where
                : {
                    mode: input.mode,
                    endpoint: input.serviceQuotasEndpoint ?? undefined,
                    endpointVar: 'SERVICE_QUOTAS_ENDPOINT',
                    sandboxUrl: input.sandboxUrl,
                  },
            ),
      );
    }

    // Security groups let Remote Desktop in.
    try {
      const groups = await ec2.client.send(
        new DescribeSecurityGroupsCommand({ GroupIds: input.securityGroupIds }),
      );
      const open = (groups.SecurityGroups ?? []).some((g) =>
        (g.IpPermissions ?? []).some((p) => allowsPort(p, input.rdpPort)),
      );
      results.push(
        open
          ? {
              check: `security group allows ${input.rdpPort}`,
              ok: true,
              detail: input.securityGroupIds.join(', '),
            }
          : {
              check: `security group allows ${input.rdpPort}`,
              ok: false,
              detail: `no inbound TCP ${input.rdpPort} rule in ${input.securityGroupIds.join(', ')}`,
              fix: `add an inbound rule TCP ${input.rdpPort} from the customers' addresses (0.0.0.0/0 for everyone)`,
            },
      );
      // The browser desktop: DCV's web client on TCP 8443 (UDP 8443 adds QUIC, optional).
      const dcvOpen = (groups.SecurityGroups ?? []).some((g) =>
        (g.IpPermissions ?? []).some((p) => allowsPort(p, DCV_PORT)),
      );
      results.push(
        dcvOpen
          ? {
              check: `security group allows ${DCV_PORT} (Amazon DCV)`,
              ok: true,
              detail: input.securityGroupIds.join(', '),
            }
          : {
              check: `security group allows ${DCV_PORT} (Amazon DCV)`,
              ok: false,
              detail: `no inbound TCP ${DCV_PORT} rule in ${input.securityGroupIds.join(', ')}: "Open in browser" cannot connect`,
              fix: `add an inbound rule TCP ${DCV_PORT} (and UDP ${DCV_PORT} for QUIC) from the customers' addresses`,
            },
      );
      // Game streaming: Moonlight and DCV's QUIC open to customers, Sunshine's API to the worker only.
      results.push(
        ...streamingIngressResults(
          (groups.SecurityGroups ?? []).flatMap((g) =>
            (g.IpPermissions ?? []).map((p) => ({
              protocol: p.IpProtocol ?? '',
              from: p.FromPort ?? null,
              to: p.ToPort ?? null,
              cidrs: [
                ...(p.IpRanges ?? []).map((r) => r.CidrIp ?? ''),
                ...(p.Ipv6Ranges ?? []).map((r) => r.CidrIpv6 ?? ''),
              ].filter(Boolean),
            })),
          ),
          input.workerEgressCidrs,
        ),
      );
    } catch (error) {
      results.push(
        failed(`security group allows ${input.rdpPort}`, error, 'check EC2_SECURITY_GROUP_IDS', where),
      );
    }

    // The key pair Windows encrypts its password to, and our half of it.
    try {
      const keys = await ec2.client.send(new DescribeKeyPairsCommand({ KeyNames: [input.keyName] }));
      const key = keys.KeyPairs?.[0];
      let privateProblem: string | null = null;
      if (!input.privateKeyPem) {
        // `npm start` hands the sandbox's private key to its worker only.
        privateProblem = input.mode === 'sandbox' ? null : 'EC2_PRIVATE_KEY_PEM is not set';
      } else {
        try {
          const fingerprint = key?.KeyFingerprint?.toLowerCase();
          if (createPrivateKey(input.privateKeyPem).asymmetricKeyType !== 'rsa') {
            privateProblem = 'EC2_PRIVATE_KEY_PEM is not an RSA key';
          } else if (fingerprint && !fingerprintsOf(input.privateKeyPem).includes(fingerprint)) {
            // Windows would encrypt passwords to a key we cannot open.
            privateProblem = `EC2_PRIVATE_KEY_PEM is not the private half of ${input.keyName} (fingerprint ${fingerprint})`;
          }
        } catch (error) {
          privateProblem = `EC2_PRIVATE_KEY_PEM does not parse: ${(error as Error).message}`;
        }
      }
      if (key?.KeyType && key.KeyType !== 'rsa') {
        results.push({
          check: `key pair ${input.keyName}`,
          ok: false,
          detail: `type ${key.KeyType}`,
          fix: 'Windows passwords need an RSA key pair: create one and set EC2_KEY_NAME',
        });
      } else if (privateProblem) {
        results.push({
          check: `key pair ${input.keyName}`,
          ok: false,
          detail: privateProblem,
          fix: "set EC2_PRIVATE_KEY_PEM to the key pair's private key (PEM)",
        });
      } else {
        const ours = input.privateKeyPem
          ? 'private key loaded'
          : 'the sandbox hands its private key to the worker';
        results.push({ check: `key pair ${input.keyName}`, ok: true, detail: `exists (RSA); ${ours}` });
      }
    } catch (error) {
      results.push(
        failed(
          `key pair ${input.keyName}`,
          error,
          'create or import an RSA key pair and set EC2_KEY_NAME',
          where,
        ),
      );
    }

    // The instance profile the CloudWatch agent and GPU poller publish with: it must exist.
    if (input.instanceProfile) {
      const name = instanceProfileName(input.instanceProfile);
      const check = 'instance profile';
      try {
        const answer = await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name }));
        const profile = answer.InstanceProfile;
        const roles = (profile?.Roles ?? []).map((r) => r.RoleName).filter(Boolean);
        results.push(
          roles.length === 0
            ? {
                check,
                ok: false,
                detail: `${name} exists but holds no role: machines could not publish their metrics`,
                fix: `aws iam add-role-to-instance-profile --instance-profile-name ${name} --role-name legend-cloud-pc (infra/README.md)`,
              }
            : { check, ok: true, detail: `${name} exists (role ${roles.join(', ')})` },
        );
      } catch (error) {
        results.push(
          errorCode(error) === 'NoSuchEntity' || errorCode(error) === 'NoSuchEntityException'
            ? {
                check,
                ok: false,
                detail: `${name} does not exist in this account`,
                fix: 'create it with infra/iam/instance-policy.json (infra/README.md), or set EC2_INSTANCE_PROFILE to one that exists',
              }
            : failed(check, error, 'check EC2_INSTANCE_PROFILE', {
                mode: input.mode,
                endpoint: input.iamEndpoint,
                sandboxUrl: input.sandboxUrl,
              }),
        );
      }
    } else {
      results.push({
        check: 'instance profile',
        ok: input.mode === 'sandbox',
        detail: 'EC2_INSTANCE_PROFILE is not set: machines could not publish GPU, memory or session metrics',
        fix: 'create the profile with infra/iam/instance-policy.json and set EC2_INSTANCE_PROFILE',
      });
    }

    // A launch as the worker would make it, with DryRun: IAM, parameters, PassRole.
    const plan = input.plans[0];
    if (plan) {
      const launch: LaunchInput = {
        clientToken: `preflight-${Date.now()}`,
        instanceType: plan.instanceType,
        imageId: plan.imageId,
        keyName: input.keyName,
        securityGroupIds: input.securityGroupIds,
        subnetId: input.subnetIds[0] ?? '',
        volumeSizeGb: plan.volumeSizeGb,
        tags: {
          'legend:app': 'legend-cloud',
          'legend:deployment': input.deploymentTag,
          'legend:vm': 'preflight',
        },
      };
      try {
        const answer = await ec2.dryRunLaunch(launch);
        results.push(
          answer.allowed
            ? {
                check: 'RunInstances DryRun',
                ok: true,
                detail: `${plan.instanceType} in ${launch.subnetId} would launch`,
              }
            : {
                check: 'RunInstances DryRun',
                ok: false,
                detail: `denied: ${answer.message}`,
                fix: POLICY_HINT,
              },
        );
      } catch (error) {
        results.push(failed('RunInstances DryRun', error, 'fix the parameter EC2 names above', where));
      }
    }
  } finally {
    ec2.destroy();
    quotas.destroy();
    iam.destroy();
  }
  return results;
}

/** One line per check: `OK   check: detail` or `FAIL check: detail — fix: …`. */
export function formatPreflight(results: PreflightResult[]): string {
  return results
    .map((r) =>
      r.ok
        ? `OK   ${r.check}: ${r.detail}`
        : `FAIL ${r.check}: ${r.detail}${r.fix ? ` — fix: ${r.fix}` : ''}`,
    )
    .join('\n');
}
