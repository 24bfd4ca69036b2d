import { STATE_CODES, type StateName } from './records.ts';
import { VPC_ID, type Engine, type InstanceView, type StateChange } from './engine.ts';
import { items, leaf, node } from './xml.ts';

/** The XML shapes of EC2's answers, member names as the SDK's schema reads them. */

function stateXml(name: string, state: StateName): string {
  return node(name, leaf('code', STATE_CODES[state]), leaf('name', state));
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function instanceXml(engine: Engine, region: string, v: InstanceView): string {
  const r = v.record;
  const reason = engine.reasonFor(r);
  const dashedPrivate = r.privateIp.replaceAll('.', '-');
  const publicDns =
    v.publicIp === null ? '' : `ec2-${v.publicIp.replaceAll('.', '-')}.${region}.compute.amazonaws.com`;
  return [
    leaf('instanceId', r.instanceId),
    leaf('imageId', r.imageId),
    stateXml('instanceState', v.state),
    leaf('privateDnsName', v.state === 'terminated' ? '' : `ip-${dashedPrivate}.${region}.compute.internal`),
    leaf('dnsName', publicDns),
    leaf('reason', reason.transitionReason ?? ''),
    leaf('keyName', r.keyName),
    leaf('amiLaunchIndex', r.amiLaunchIndex),
    leaf('instanceType', r.instanceType),
    leaf('launchTime', iso(r.startedAt)),
    node(
      'placement',
      leaf('availabilityZone', r.availabilityZone),
      leaf('groupName', ''),
      leaf('tenancy', 'default'),
    ),
    leaf('platform', 'windows'),
    node('monitoring', leaf('state', 'disabled')),
    v.state === 'terminated' ? '' : leaf('subnetId', r.subnetId),
    v.state === 'terminated' ? '' : leaf('vpcId', VPC_ID),
    v.state === 'terminated' ? '' : leaf('privateIpAddress', r.privateIp),
    leaf('ipAddress', v.publicIp),
    leaf('sourceDestCheck', true),
    items(
      'groupSet',
      r.securityGroupIds.map((id) => leaf('groupId', id) + leaf('groupName', id)),
    ),
    reason.stateReason
      ? node(
          'stateReason',
          leaf('code', reason.stateReason.code),
          leaf('message', reason.stateReason.message),
        )
      : '',
    leaf('architecture', 'x86_64'),
    leaf('rootDeviceType', 'ebs'),
    leaf('rootDeviceName', r.rootDeviceName),
    items(
      'blockDeviceMapping',
      v.state === 'terminated'
        ? []
        : [
            leaf('deviceName', r.rootDeviceName) +
              node(
                'ebs',
                leaf('volumeId', r.volumeId),
                leaf('status', 'attached'),
                leaf('attachTime', iso(r.launchedAt)),
                leaf('deleteOnTermination', true),
              ),
          ],
    ),
    leaf('virtualizationType', 'hvm'),
    leaf('clientToken', r.clientToken ?? ''),
    items(
      'tagSet',
      r.tags.map((tag) => leaf('key', tag.key) + leaf('value', tag.value)),
    ),
    leaf('hypervisor', 'xen'),
    leaf('ebsOptimized', true),
    leaf('enaSupport', true),
    leaf('platformDetails', 'Windows'),
    leaf('usageOperation', 'RunInstances:0002'),
  ].join('');
}

export function stateChangeXml(change: StateChange): string {
  return (
    leaf('instanceId', change.instanceId) +
    stateXml('currentState', change.current) +
    stateXml('previousState', change.previous)
  );
}

/** Reservations as EC2 groups them: consecutive instances of one launch share an item. */
export function reservationsXml(
  engine: Engine,
  region: string,
  ownerId: string,
  views: InstanceView[],
): string[] {
  const groups: InstanceView[][] = [];
  for (const v of views) {
    const last = groups[groups.length - 1];
    if (last && last[0]?.record.reservationId === v.record.reservationId) last.push(v);
    else groups.push([v]);
  }
  return groups.map(
    (group) =>
      leaf('reservationId', group[0]?.record.reservationId) +
      leaf('ownerId', ownerId) +
      items(
        'instancesSet',
        group.map((v) => instanceXml(engine, region, v)),
      ),
  );
}
