import { resolveNs } from 'node:dns/promises';
import type { MachineNameConfig } from '../config/machineNameConfig.ts';
import type { PreflightResult } from './awsPreflight.ts';
import { createRoute53, describeRoute53Error, fqdn } from './route53.ts';

/**
 * `npm run aws:check`'s questions about the machines' DNS names, asked of Route 53 with the
 * worker's credentials, reading only: does MACHINE_DNS_ZONE_ID exist and answer, is it the zone of
 * MACHINE_DNS_SUFFIX, is it public (customers' devices must resolve the names), can its records
 * be listed, and (against AWS) does the public DNS send MACHINE_DNS_SUFFIX to this zone's name
 * servers. Without a zone it says the names are off and what that means.
 */
export async function checkMachineNames(
  names: MachineNameConfig | null,
  options: { mode: 'aws' | 'sandbox'; lookupNs?: (name: string) => Promise<string[]> },
): Promise<PreflightResult[]> {
  const check = 'machine names: Route 53 zone';
  if (!names)
    return [
      {
        check: 'machine names',
        ok: true,
        detail:
          'off (MACHINE_DNS_ZONE_ID is unset): customers reach their PC by an IP address that changes at every start',
      },
    ];
  const route53 = createRoute53({ ...names.route53, maxAttempts: 1 });
  const results: PreflightResult[] = [];
  try {
    let zone;
    try {
      zone = await route53.hostedZone(names.zoneId);
    } catch (error) {
      const detail = describeRoute53Error(error);
      const denied = /AccessDenied|NotAuthorized/.test(detail);
      results.push({
        check,
        ok: false,
        detail: `${names.zoneId}: ${detail}`,
        fix: denied
          ? 'attach infra/iam/worker-policy.json to the worker role (route53:GetHostedZone, ListResourceRecordSets, ChangeResourceRecordSets)'
          : /NoSuchHostedZone/.test(detail)
            ? `create a public hosted zone for ${names.suffix} in Route 53 and set MACHINE_DNS_ZONE_ID to its id`
            : 'check the worker reaches Route 53 (route53.amazonaws.com, HTTPS) and its credentials',
      });
      return results;
    }
    const named = fqdn(names.suffix) === fqdn(zone.name);
    results.push(
      named
        ? {
            check,
            ok: true,
            detail: `${names.zoneId} is ${zone.name} (${zone.recordCount ?? '?'} record sets)`,
          }
        : {
            check,
            ok: false,
            detail: `${names.zoneId} is ${zone.name}, not MACHINE_DNS_SUFFIX ${names.suffix}`,
            fix: `set MACHINE_DNS_SUFFIX to ${zone.name.replace(/\.$/, '')}, or MACHINE_DNS_ZONE_ID to the zone of ${names.suffix}`,
          },
    );
    results.push(
      zone.private
        ? {
            check: 'machine names: zone is public',
            ok: false,
            detail: `${zone.name} is a private zone: customers' devices cannot resolve names in it`,
            fix: `use a public hosted zone for ${names.suffix}`,
          }
        : { check: 'machine names: zone is public', ok: true, detail: zone.name },
    );
    try {
      await route53.readA(names.zoneId, `pc-00000000.${names.suffix}`);
      results.push({
        check: 'machine names: records readable',
        ok: true,
        detail: 'ListResourceRecordSets answers',
      });
    } catch (error) {
      results.push({
        check: 'machine names: records readable',
        ok: false,
        detail: describeRoute53Error(error),
        fix: 'attach infra/iam/worker-policy.json to the worker role (route53:ListResourceRecordSets)',
      });
    }
    if (options.mode === 'aws' && zone.nameServers.length > 0) {
      const lookup = options.lookupNs ?? resolveNs;
      const want = zone.nameServers.map((ns) => fqdn(ns));
      try {
        const found = (await lookup(names.suffix)).map((ns) => fqdn(ns));
        const delegated = want.some((ns) => found.includes(ns));
        results.push(
          delegated
            ? {
                check: 'machine names: zone is delegated',
                ok: true,
                detail: `${names.suffix} NS ${found.join(', ')}`,
              }
            : {
                check: 'machine names: zone is delegated',
                ok: false,
                detail: `the public DNS sends ${names.suffix} to ${found.join(', ') || 'nobody'}, not to this zone (${want.join(', ')})`,
                fix: `at the parent domain's DNS, add NS records for ${names.suffix}: ${want.join(', ')}`,
              },
        );
      } catch (error) {
        results.push({
          check: 'machine names: zone is delegated',
          ok: false,
          detail: `no NS answer for ${names.suffix}: ${(error as Error).message}`,
          fix: `at the parent domain's DNS, add NS records for ${names.suffix}: ${want.join(', ')}`,
        });
      }
    }
    return results;
  } finally {
    route53.destroy();
  }
}
