import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UTILISATION_METRICS } from './cloudwatch.ts';
import { DCV_AUTH_PATH, DCV_PORT, DCV_USERNAME } from '../domain/desktop.ts';
import { machineLabel } from '../domain/machineName.ts';

/**
 * The IAM documents in infra/iam grant exactly what the code calls. The worker's calls are read
 * from the source: every `…Command` imported from an `@aws-sdk/client-*` package in
 * core/providers is one IAM action. A new call without a grant, or a grant nothing calls,
 * fails here; adding a call means adding it to the policy in the same change.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const PROVIDERS = path.join(ROOT, 'core/providers');

/** IAM service prefix of each SDK client package. */
const SERVICE_PREFIX: Record<string, string> = {
  'client-ec2': 'ec2',
  'client-cloudwatch': 'cloudwatch',
  'client-service-quotas': 'servicequotas',
  'client-route-53': 'route53',
  'client-iam': 'iam',
};

/** Actions a call needs besides its own (AWS authorises them separately). */
const IMPLIED: Record<string, string[]> = {
  // Launching with an instance profile passes its role; TagSpecifications tag on create.
  'ec2:RunInstances': ['iam:PassRole', 'ec2:CreateTags'],
  'ec2:CreateSnapshot': ['ec2:CreateTags'],
};

type Statement = {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
};
type Policy = { Version: string; Statement: Statement[] };

const asList = (value: string | string[]) => (Array.isArray(value) ? value : [value]);

function readPolicy(name: string): Policy {
  return JSON.parse(readFileSync(path.join(ROOT, 'infra/iam', name), 'utf8')) as Policy;
}

/** `ec2:RunInstances`, … for every Command the provider sources import from the AWS SDK. */
function actionsCalledByProviders(): string[] {
  const actions = new Set<string>();
  const files = readdirSync(PROVIDERS).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  for (const file of files) {
    const source = readFileSync(path.join(PROVIDERS, file), 'utf8');
    for (const match of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@aws-sdk\/(client-[a-z0-9-]+)'/g)) {
      const [, names = '', pkg = ''] = match;
      const prefix = SERVICE_PREFIX[pkg];
      if (!prefix) throw new Error(`${file} imports @aws-sdk/${pkg}: add its IAM prefix to SERVICE_PREFIX`);
      for (const raw of names.split(',')) {
        const name = raw.replace(/^\s*type\s+/, '').trim();
        const command = /^([A-Z][A-Za-z0-9]+)Command$/.exec(name);
        if (command?.[1]) actions.add(`${prefix}:${command[1]}`);
      }
    }
  }
  return [...actions].sort();
}

function granted(policy: Policy): string[] {
  return [
    ...new Set(policy.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) => asList(s.Action))),
  ].sort();
}

function statementsFor(policy: Policy, action: string): Statement[] {
  return policy.Statement.filter((s) => asList(s.Action).includes(action));
}

describe('the worker policy (infra/iam/worker-policy.json)', () => {
  const policy = readPolicy('worker-policy.json');
  const called = actionsCalledByProviders();
  const needed = [...new Set([...called, ...called.flatMap((a) => IMPLIED[a] ?? [])])].sort();

  it('finds the calls in the source (the scan itself works)', () => {
    expect(called).toEqual(
      expect.arrayContaining(['ec2:RunInstances', 'ec2:DescribeInstances', 'cloudwatch:GetMetricData']),
    );
  });

  it('allows every AWS call the code makes and nothing more', () => {
    expect(granted(policy)).toEqual(needed);
    expect(policy.Statement.every((s) => s.Effect === 'Allow')).toBe(true);
    expect(JSON.stringify(policy)).not.toMatch(/"(ec2|cloudwatch|iam|servicequotas|route53|\*):\*"|"\*:/);
  });

  it('acts only on instances carrying our tag, and launches only tagged as ours', () => {
    const readOnly = /^[a-z0-9-]+:(Describe|Get|List)/;
    for (const action of needed.filter((a) => !readOnly.test(a) || a === 'ec2:GetPasswordData')) {
      for (const statement of statementsFor(policy, action)) {
        const conditions = JSON.stringify(statement.Condition ?? {});
        const resources = asList(statement.Resource);
        if (action === 'ec2:RunInstances' && !resources.some((r) => /:(instance|volume)\//.test(r))) continue;
        expect(resources, `${action} (${statement.Sid})`).not.toContain('*');
        expect(conditions, `${action} (${statement.Sid}) needs a tag or create-action condition`).toMatch(
          /aws:ResourceTag\/legend:app|aws:RequestTag\/legend:app|ec2:CreateAction|iam:PassedToService|route53:ChangeResourceRecordSetsNormalizedRecordNames/,
        );
      }
    }
    const launch = statementsFor(policy, 'ec2:RunInstances').find((s) =>
      asList(s.Resource).some((r) => r.includes(':instance/')),
    );
    expect(launch?.Condition?.['StringEquals']).toMatchObject({
      'aws:RequestTag/legend:app': 'legend-cloud',
    });
    for (const action of ['ec2:StartInstances', 'ec2:StopInstances', 'ec2:TerminateInstances'].filter((a) =>
      needed.includes(a),
    )) {
      const [statement] = statementsFor(policy, action);
      expect(statement?.Condition?.['StringEquals']).toMatchObject({
        'aws:ResourceTag/legend:app': 'legend-cloud',
      });
    }
  });
});

describe("the machines' DNS names (Route 53)", () => {
  const policy = readPolicy('worker-policy.json');

  it('changes only A records named as ours (pc-xxxxxxxx.<zone>), by UPSERT and DELETE, in hosted zones only', () => {
    const [change, ...more] = statementsFor(policy, 'route53:ChangeResourceRecordSets');
    expect(more).toEqual([]);
    expect(asList(change!.Resource)).toEqual(['arn:aws:route53:::hostedzone/*']);
    expect(change!.Condition).toEqual({
      'ForAllValues:StringEquals': {
        'route53:ChangeResourceRecordSetsRecordTypes': ['A'],
        'route53:ChangeResourceRecordSetsActions': ['UPSERT', 'DELETE'],
      },
      'ForAllValues:StringLike': {
        'route53:ChangeResourceRecordSetsNormalizedRecordNames': ['pc-????????.*'],
      },
    });
    // The names the worker writes fit the pattern: `pc-` and eight letters, then the zone.
    const label = machineLabel(new Uint8Array(8).fill(7));
    expect(`${label}.play.legendcloud.in`).toMatch(/^pc-.{8}\..+$/);
    for (const action of ['route53:GetHostedZone', 'route53:ListResourceRecordSets'])
      expect(statementsFor(policy, action).flatMap((s) => asList(s.Resource))).toEqual([
        'arn:aws:route53:::hostedzone/*',
      ]);
  });
});

describe('the desktop instance profile (infra/iam/instance-policy.json)', () => {
  const policy = readPolicy('instance-policy.json');
  const image = path.join(ROOT, 'infra/image');
  const imageSources = readdirSync(image, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ps1|json|pkr\.hcl)$/.test(f))
    .map((f) => readFileSync(path.join(image, f), 'utf8'))
    .join('\n');

  /** What software on the image does, found in the recipe, and the action each needs. */
  const evidence: Array<{ action: string; pattern: RegExp }> = [
    { action: 'cloudwatch:PutMetricData', pattern: /Write-CWMetricData|"metrics_collected"/ },
    { action: 's3:GetObject', pattern: /dcv-license/ },
  ];

  it('grants what the image runs and nothing more', () => {
    const needed = evidence.filter((e) => e.pattern.test(imageSources)).map((e) => e.action);
    expect(needed).toContain('cloudwatch:PutMetricData');
    expect(granted(policy)).toEqual([...new Set(needed)].sort());
  });

  it("reads only Amazon DCV's licence objects, and the image points DCV at our verifier", () => {
    const statements = statementsFor(policy, 's3:GetObject');
    const resources = statements.flatMap((st) => [st.Resource].flat());
    expect(resources.length).toBeGreaterThan(0);
    // dcv-license.<region>/* (any region): objects only, no listing, no other bucket.
    for (const resource of resources)
      expect(resource).toMatch(/^arn:aws:s3:::dcv-license\.(\*|[a-z0-9-]+)\/\*$/);
    for (const st of statements) expect([st.Action].flat()).toEqual(['s3:GetObject']);
    expect(imageSources).toContain(`${DCV_AUTH_PATH}"`);
    expect(imageSources).toContain(`'auth-token-verifier'`);
    expect(imageSources).toContain(`-LocalPort ${DCV_PORT}`);
    expect(imageSources).toContain(`-Name 'owner' -PropertyType String -Value '${DCV_USERNAME}'`);
  });

  it('publishes only into the namespaces the image and the usage page use', () => {
    const [statement] = statementsFor(policy, 'cloudwatch:PutMetricData');
    const namespaces = statement?.Condition?.['StringEquals']?.['cloudwatch:namespace'] as string[];
    expect(namespaces).toContain(UTILISATION_METRICS.gpu.namespace);
    const agent = JSON.parse(readFileSync(path.join(image, 'cloudwatch-agent.json'), 'utf8')) as {
      metrics: { namespace: string };
    };
    expect(namespaces).toContain(agent.metrics.namespace);
    expect(imageSources).toContain(`'${UTILISATION_METRICS.gpu.namespace}'`);
    expect(imageSources).toContain(`'${UTILISATION_METRICS.gpu.metricName}'`);
  });
});
