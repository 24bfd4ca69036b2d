import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { koaBody } from 'koa-body';
import { z } from 'zod';
import { readRawBody } from '../body.ts';
import { escapeXml, unescapeXml } from '../xmlText.ts';

/**
 * A stand-in for Amazon Route 53 as the real `@aws-sdk/client-route-53` talks to it: REST XML
 * under `/2013-04-01/` (mounted at /sandbox/route53), the API version's namespace, Route 53's
 * error shape (`<ErrorResponse><Error><Type/><Code/><Message/></Error><RequestId/></ErrorResponse>`).
 * It plays the operations the product calls, per the Route 53 API reference:
 * - `GET /2013-04-01/hostedzone/{Id}` (GetHostedZone): the zone, or 404 NoSuchHostedZone;
 * - `POST /2013-04-01/hostedzone/{Id}/rrset` (ChangeResourceRecordSets): a ChangeBatch of CREATE,
 *   UPSERT and DELETE, applied all or nothing. CREATE of a name that exists and DELETE of one that
 *   does not, or whose TTL or values differ, are 400 InvalidChangeBatch. Answers a ChangeInfo with
 *   Status PENDING, as Route 53 does until every name server has the change;
 * - `GET /2013-04-01/hostedzone/{Id}/rrset?name=&type=&maxitems=` (ListResourceRecordSets): the
 *   record sets from that name and type on, in Route 53's order (by name with its labels reversed,
 *   then type), `IsTruncated` and the next name and type when there are more;
 * - `GET /2013-04-01/change/{Id}` (GetChange): INSYNC.
 * Signatures are not checked; a request without an Authorization header is refused as
 * Route 53 refuses it (403 MissingAuthenticationToken).
 *
 * Beyond Route 53, for tests and the demo:
 * - `GET /_state`: every zone and its A records `{ zones: [{ id, name, records: [{ name, type, ttl, values }] }], changes }`;
 * - `POST /_control {"failing": "ServiceUnavailable" | "Throttling" | null}`: every API call fails so
 *   (503 or 400), an outage; `{"set": {"name", "ip"}}` edits a record as someone in the console would;
 *   `{"zones": [{id, name}]}` adds zones; `{"removeZone": id}` deletes one;
 * - `POST /_reset`: the sandbox zone only, no records, no failures.
 */

const NAMESPACE = 'https://route53.amazonaws.com/doc/2013-04-01/';

/** The zone `npm start` and the browser tests name (MACHINE_DNS_ZONE_ID, MACHINE_DNS_SUFFIX). */
export const SANDBOX_ROUTE53_ZONE = { id: 'Z0SANDBOXLEGENDPLAY01', name: 'play.legendcloud.test' } as const;

type RecordSet = { name: string; type: string; ttl: number; values: string[] };
type Zone = { id: string; name: string; records: Map<string, RecordSet>; private: boolean };

class Route53Error extends Error {
  readonly status: number;
  readonly code: string;
  readonly type: 'Sender' | 'Receiver';
  constructor(status: number, code: string, message: string, type: 'Sender' | 'Receiver' = 'Sender') {
    super(message);
    this.status = status;
    this.code = code;
    this.type = type;
  }
}

const ControlSchema = z.strictObject({
  failing: z.enum(['ServiceUnavailable', 'Throttling']).nullable().optional(),
  set: z.strictObject({ name: z.string().min(1).max(253), ip: z.ipv4() }).optional(),
  zones: z
    .array(z.strictObject({ id: z.string().regex(/^Z[A-Z0-9]{1,31}$/), name: z.string().min(1) }))
    .optional(),
  removeZone: z.string().optional(),
});

export type SandboxRoute53 = {
  /** Routes without a prefix: mount at /sandbox/route53. */
  router: Router;
  state(): { zones: Array<{ id: string; name: string; records: RecordSet[] }>; changes: number };
  reset(): void;
};

/** The text of every `<tag>…</tag>` directly in `xml` (no attributes in Route 53's request bodies). */
function elements(xml: string, tag: string): string[] {
  const found: string[] = [];
  const pattern = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'g');
  for (let match = pattern.exec(xml); match; match = pattern.exec(xml)) found.push(match[1] ?? '');
  return found;
}
const text = (xml: string, tag: string) => {
  const [first] = elements(xml, tag);
  return first === undefined ? undefined : unescapeXml(first.trim());
};

/** `pc-x.play.example.test.` as Route 53 keeps names: lowercase, with the final dot. */
function canonical(name: string): string {
  const lower = name.trim().toLowerCase();
  return lower.endsWith('.') ? lower : `${lower}.`;
}
/** Route 53 lists record sets by name with its labels reversed (com.example.www), then by type. */
function sortKey(set: { name: string; type: string }): string {
  return `${set.name.replace(/\.$/, '').split('.').reverse().join('.')}\u0000${set.type}`;
}
const keyOf = (name: string, type: string) => `${canonical(name)} ${type}`;

export function createSandboxRoute53(): SandboxRoute53 {
  const zones = new Map<string, Zone>();
  let failing: 'ServiceUnavailable' | 'Throttling' | null = null;
  let changes = 0;

  function reset() {
    zones.clear();
    zones.set(SANDBOX_ROUTE53_ZONE.id, {
      id: SANDBOX_ROUTE53_ZONE.id,
      name: canonical(SANDBOX_ROUTE53_ZONE.name),
      records: new Map(),
      private: false,
    });
    failing = null;
    changes = 0;
  }
  reset();

  function zoneOf(id: string): Zone {
    const zone = zones.get(id.replace(/^\/?hostedzone\//, ''));
    if (!zone) throw new Route53Error(404, 'NoSuchHostedZone', `No hosted zone found with ID: ${id}`);
    return zone;
  }

  function reply(ctx: Context, status: number, body: string) {
    ctx.status = status;
    ctx.type = 'text/xml';
    ctx.set('x-amzn-RequestId', randomUUID());
    ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
  }

  function changeInfo(id: string, comment: string | undefined) {
    return `<ChangeInfo><Id>/change/${id}</Id><Status>PENDING</Status><SubmittedAt>${new Date().toISOString()}</SubmittedAt>${
      comment ? `<Comment>${escapeXml(comment)}</Comment>` : ''
    }</ChangeInfo>`;
  }

  /** Applies a ChangeBatch all or nothing, as Route 53 does. */
  function applyBatch(zone: Zone, body: string): void {
    const changeXml = elements(body, 'Change');
    if (changeXml.length === 0)
      throw new Route53Error(400, 'InvalidInput', 'The change batch has no changes.');
    const next = new Map(zone.records);
    const problems: string[] = [];
    for (const change of changeXml) {
      const action = text(change, 'Action');
      const setXml = elements(change, 'ResourceRecordSet')[0] ?? '';
      const name = canonical(text(setXml, 'Name') ?? '');
      const type = text(setXml, 'Type') ?? '';
      const ttl = Number(text(setXml, 'TTL') ?? 'NaN');
      const values = elements(setXml, 'Value').map((v) => unescapeXml(v.trim()));
      if (!name.endsWith(zone.name) || name === '.')
        throw new Route53Error(
          400,
          'InvalidChangeBatch',
          `RRSet with DNS name ${name} is not permitted in zone ${zone.name}`,
        );
      if (
        !['A', 'AAAA', 'CNAME', 'TXT'].includes(type) ||
        !Number.isInteger(ttl) ||
        ttl < 0 ||
        values.length === 0
      )
        throw new Route53Error(400, 'InvalidInput', `Invalid resource record set for ${name}`);
      const key = keyOf(name, type);
      const existing = next.get(key);
      const set: RecordSet = { name, type, ttl, values };
      switch (action) {
        case 'CREATE':
          if (existing)
            problems.push(
              `Tried to create resource record set [name='${name}', type='${type}'] but it already exists`,
            );
          else next.set(key, set);
          break;
        case 'UPSERT':
          next.set(key, set);
          break;
        case 'DELETE':
          if (!existing)
            problems.push(
              `Tried to delete resource record set [name='${name}', type='${type}'] but it was not found`,
            );
          else if (existing.ttl !== ttl || existing.values.join(',') !== values.join(','))
            problems.push(
              `Tried to delete resource record set [name='${name}', type='${type}'] but the values provided do not match the current values`,
            );
          else next.delete(key);
          break;
        default:
          throw new Route53Error(400, 'InvalidInput', `Invalid action ${String(action)}`);
      }
    }
    if (problems.length > 0) throw new Route53Error(400, 'InvalidChangeBatch', `[${problems.join(', ')}]`);
    zone.records = next;
    changes += 1;
  }

  function listSets(zone: Zone, query: Record<string, unknown>): string {
    const from = typeof query.name === 'string' ? canonical(query.name) : null;
    const type = typeof query.type === 'string' ? query.type : null;
    if (type && !from) throw new Route53Error(400, 'InvalidInput', 'The type parameter requires a name.');
    const max = Math.min(300, Math.max(1, Number(query.maxitems ?? 300) || 300));
    const sorted = [...zone.records.values()].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1));
    const start = from ? sortKey({ name: from, type: type ?? '' }) : '';
    const listed = sorted.filter((set) => sortKey(set) >= start);
    const page = listed.slice(0, max);
    const after = listed[max];
    const sets = page
      .map(
        (set) =>
          `<ResourceRecordSet><Name>${escapeXml(set.name)}</Name><Type>${set.type}</Type><TTL>${set.ttl}</TTL><ResourceRecords>${set.values
            .map((v) => `<ResourceRecord><Value>${escapeXml(v)}</Value></ResourceRecord>`)
            .join('')}</ResourceRecords></ResourceRecordSet>`,
      )
      .join('');
    return `<ListResourceRecordSetsResponse xmlns="${NAMESPACE}"><ResourceRecordSets>${sets}</ResourceRecordSets><IsTruncated>${
      after ? 'true' : 'false'
    }</IsTruncated>${after ? `<NextRecordName>${escapeXml(after.name)}</NextRecordName><NextRecordType>${after.type}</NextRecordType>` : ''}<MaxItems>${max}</MaxItems></ListResourceRecordSetsResponse>`;
  }

  const router = new Router();

  // Route 53's own errors for everything under the API version.
  router.use('/2013-04-01', async (ctx, next) => {
    try {
      if (!ctx.get('authorization'))
        throw new Route53Error(403, 'MissingAuthenticationToken', 'Missing Authentication Token');
      if (failing === 'Throttling') throw new Route53Error(400, 'Throttling', 'Rate exceeded');
      if (failing === 'ServiceUnavailable')
        throw new Route53Error(503, 'ServiceUnavailable', 'Service is temporarily unavailable', 'Receiver');
      await next();
    } catch (error) {
      if (!(error instanceof Route53Error)) throw error;
      reply(
        ctx,
        error.status,
        `<ErrorResponse xmlns="${NAMESPACE}"><Error><Type>${error.type}</Type><Code>${error.code}</Code><Message>${escapeXml(
          error.message,
        )}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
      );
    }
  });

  router.get('/2013-04-01/hostedzone/:id', (ctx) => {
    const zone = zoneOf(ctx.params.id ?? '');
    reply(
      ctx,
      200,
      `<GetHostedZoneResponse xmlns="${NAMESPACE}"><HostedZone><Id>/hostedzone/${zone.id}</Id><Name>${escapeXml(zone.name)}</Name><CallerReference>sandbox</CallerReference><Config><PrivateZone>${
        zone.private ? 'true' : 'false'
      }</PrivateZone></Config><ResourceRecordSetCount>${zone.records.size}</ResourceRecordSetCount></HostedZone><DelegationSet><NameServers><NameServer>ns-1.sandbox.invalid</NameServer><NameServer>ns-2.sandbox.invalid</NameServer></NameServers></DelegationSet></GetHostedZoneResponse>`,
    );
  });

  router.post('/2013-04-01/hostedzone/:id/rrset', async (ctx) => {
    const zone = zoneOf(ctx.params.id ?? '');
    const body = (
      await readRawBody(ctx.req, () => new Route53Error(400, 'InvalidInput', 'The request is too large.'))
    ).toString('utf8');
    if (!body.includes('<ChangeResourceRecordSetsRequest'))
      throw new Route53Error(400, 'InvalidInput', 'Expected a ChangeResourceRecordSetsRequest document.');
    applyBatch(zone, body);
    reply(
      ctx,
      200,
      `<ChangeResourceRecordSetsResponse xmlns="${NAMESPACE}">${changeInfo(randomUUID().replaceAll('-', '').slice(0, 14).toUpperCase(), text(body, 'Comment'))}</ChangeResourceRecordSetsResponse>`,
    );
  });

  router.get('/2013-04-01/hostedzone/:id/rrset', (ctx) => {
    reply(ctx, 200, listSets(zoneOf(ctx.params.id ?? ''), ctx.query));
  });

  router.get('/2013-04-01/change/:id', (ctx) => {
    reply(
      ctx,
      200,
      `<GetChangeResponse xmlns="${NAMESPACE}"><ChangeInfo><Id>/change/${escapeXml(ctx.params.id ?? '')}</Id><Status>INSYNC</Status><SubmittedAt>${new Date().toISOString()}</SubmittedAt></ChangeInfo></GetChangeResponse>`,
    );
  });

  function state() {
    return {
      zones: [...zones.values()].map((zone) => ({
        id: zone.id,
        name: zone.name,
        records: [...zone.records.values()].sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : 1)),
      })),
      changes,
    };
  }

  router.get('/_state', (ctx) => {
    ctx.body = state();
  });

  router.post('/_control', koaBody({ jsonLimit: '64kb' }), (ctx) => {
    const parsed = ControlSchema.safeParse(ctx.request.body);
    if (!parsed.success) {
      ctx.status = 400;
      ctx.body = { message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };
      return;
    }
    const input = parsed.data;
    if (input.failing !== undefined) failing = input.failing;
    for (const zone of input.zones ?? [])
      zones.set(zone.id, { id: zone.id, name: canonical(zone.name), records: new Map(), private: false });
    if (input.removeZone) zones.delete(input.removeZone);
    if (input.set) {
      const name = canonical(input.set.name);
      const zone = [...zones.values()].find((z) => name.endsWith(z.name));
      if (!zone) {
        ctx.status = 400;
        ctx.body = { message: `no zone holds ${name}` };
        return;
      }
      const existing = zone.records.get(keyOf(name, 'A'));
      zone.records.set(keyOf(name, 'A'), {
        name,
        type: 'A',
        ttl: existing?.ttl ?? 300,
        values: [input.set.ip],
      });
    }
    ctx.status = 204;
  });

  router.post('/_reset', (ctx) => {
    reset();
    ctx.status = 204;
  });

  return { router, state, reset };
}
