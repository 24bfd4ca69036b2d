import {
  ChangeResourceRecordSetsCommand,
  GetHostedZoneCommand,
  ListResourceRecordSetsCommand,
  Route53Client,
} from '@aws-sdk/client-route-53';
import type { RecordView } from '../domain/machineName.ts';
import { awsClientConfig, type AwsClientOptions } from './awsClientConfig.ts';

/**
 * Route 53 through the real `@aws-sdk/client-route-53` (REST XML), against AWS or the sandbox:
 * only the endpoint and keys differ. The machines' A records in one hosted zone: read one,
 * point it at an address (UPSERT), delete it, and the zone itself for the preflight.
 *
 * Facts relied on (AWS Route 53 API reference, "ChangeResourceRecordSets", "ListResourceRecordSets"):
 * UPSERT creates or replaces a record set; DELETE must name the record set exactly as it is (name,
 * type, TTL and values); a change is PENDING until every Route 53 name server has it (typically
 * within 60 s), then INSYNC. ListResourceRecordSets lists from `name`/`type` on, in order, so the
 * first entry is the record asked for only if its name and type match.
 */

export type Route53 = {
  /** The A record of `name` (a full name, without the final dot), or null when there is none. */
  readA(zoneId: string, name: string): Promise<RecordView>;
  /** Points `name` at `ip` (creating or replacing the record); answers Route 53's change id. */
  upsertA(zoneId: string, name: string, ip: string, ttl: number): Promise<string>;
  /** Deletes the A record exactly as given (Route 53 refuses any other). */
  deleteA(zoneId: string, name: string, record: NonNullable<RecordView>): Promise<string>;
  /** The hosted zone's name (with its final dot), whether it is private, its name servers; throws when it does not exist. */
  hostedZone(
    zoneId: string,
  ): Promise<{ name: string; private: boolean; recordCount: number | null; nameServers: string[] }>;
  destroy(): void;
};

/** `pc-x.play.example.in.` as Route 53 writes names: lowercase, with the final dot. */
export function fqdn(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower : `${lower}.`;
}

export function createRoute53(options: AwsClientOptions): Route53 {
  // The job retries with its own backoff: one quick SDK retry of throttling is enough here.
  const client = new Route53Client(awsClientConfig({ maxAttempts: 2, requestTimeoutMs: 10_000, ...options }));

  async function change(
    zoneId: string,
    action: 'UPSERT' | 'DELETE',
    name: string,
    ip: string,
    ttl: number,
  ): Promise<string> {
    const answer = await client.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zoneId,
        ChangeBatch: {
          Comment: `legend-cloud ${action.toLowerCase()} ${name}`,
          Changes: [
            {
              Action: action,
              ResourceRecordSet: { Name: fqdn(name), Type: 'A', TTL: ttl, ResourceRecords: [{ Value: ip }] },
            },
          ],
        },
      }),
    );
    return answer.ChangeInfo?.Id ?? '';
  }

  return {
    async readA(zoneId, name) {
      const wanted = fqdn(name);
      const answer = await client.send(
        new ListResourceRecordSetsCommand({
          HostedZoneId: zoneId,
          StartRecordName: wanted,
          StartRecordType: 'A',
          MaxItems: 1,
        }),
      );
      const set = answer.ResourceRecordSets?.[0];
      if (!set || fqdn(set.Name ?? '') !== wanted || set.Type !== 'A') return null;
      const ip = set.ResourceRecords?.[0]?.Value;
      // An alias or an empty set is not one of ours: treated as a record pointing nowhere we know.
      return ip ? { ip, ttl: set.TTL ?? 0 } : { ip: '', ttl: set.TTL ?? 0 };
    },
    upsertA: (zoneId, name, ip, ttl) => change(zoneId, 'UPSERT', name, ip, ttl),
    deleteA: (zoneId, name, record) => change(zoneId, 'DELETE', name, record.ip, record.ttl),
    async hostedZone(zoneId) {
      const answer = await client.send(new GetHostedZoneCommand({ Id: zoneId }));
      return {
        name: answer.HostedZone?.Name ?? '',
        private: answer.HostedZone?.Config?.PrivateZone === true,
        recordCount: answer.HostedZone?.ResourceRecordSetCount ?? null,
        nameServers: answer.DelegationSet?.NameServers ?? [],
      };
    },
    destroy() {
      client.destroy();
    },
  };
}

/** What a failed Route 53 call was, for the row, the logs and the alert (never a secret). */
export function describeRoute53Error(error: unknown): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const { name, message } = error as { name?: unknown; message?: unknown };
  const requestId = (error as { $metadata?: { requestId?: unknown } }).$metadata?.requestId;
  return `${typeof name === 'string' ? name : 'Error'}: ${typeof message === 'string' ? message : ''}${
    typeof requestId === 'string' ? ` (request ${requestId})` : ''
  }`.slice(0, 500);
}
