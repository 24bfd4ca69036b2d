import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { readRawBody } from '../body.ts';

/**
 * A stand-in for the Service Quotas API (AWS JSON 1.1, `X-Amz-Target:
 * ServiceQuotasV20190624.<Action>`), enough for the preflight's question: how many vCPUs of
 * G instances may this account run On-Demand? The answer is the EC2 stand-in's vCPU limit,
 * so the quota it reports is the one RunInstances enforces.
 */

/** Running On-Demand G and VT instances, in vCPUs. */
export const G_VCPU_QUOTA_CODE = 'L-DB2E81BA';
/** What the sandbox reports when its EC2 has no vCPU limit. */
const UNLIMITED = 10_000;

export type QuotaSource = {
  region: string;
  ownerId: string;
  vcpuLimit(): number | null;
  /** Throws when the action is denied; the error's code and message are answered. */
  checkAuthorized(iamAction: string): void;
};

export function createSandboxServiceQuotas(source: QuotaSource): Router {
  const router = new Router();
  router.post('/', async (ctx: Context) => {
    const requestId = randomUUID();
    ctx.set('x-amzn-requestid', requestId);
    ctx.type = 'application/x-amz-json-1.1';
    const fail = (status: number, type: string, message: string) => {
      ctx.status = status;
      ctx.body = JSON.stringify({ __type: type, message });
    };
    const raw = await readRawBody(ctx.req, () => new Error('The request body is too large.'));
    if (!ctx.get('authorization')) {
      fail(400, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
      return;
    }
    const action = (ctx.get('x-amz-target').split('.')[1] ?? '').trim();
    let input: { ServiceCode?: unknown; QuotaCode?: unknown };
    try {
      input = JSON.parse(raw.toString('utf8') || '{}') as typeof input;
    } catch (error) {
      fail(400, 'SerializationException', (error as Error).message);
      return;
    }
    try {
      source.checkAuthorized(`servicequotas:${action}`);
    } catch (error) {
      fail(400, 'AccessDeniedException', (error as Error).message);
      return;
    }
    if (action !== 'GetServiceQuota') {
      fail(400, 'UnknownOperationException', `The sandbox does not simulate ${action}.`);
      return;
    }
    if (input.ServiceCode !== 'ec2' || input.QuotaCode !== G_VCPU_QUOTA_CODE) {
      fail(400, 'NoSuchResourceException', `The sandbox knows only ec2/${G_VCPU_QUOTA_CODE}.`);
      return;
    }
    ctx.status = 200;
    ctx.body = JSON.stringify({
      Quota: {
        ServiceCode: 'ec2',
        ServiceName: 'Amazon Elastic Compute Cloud (Amazon EC2)',
        QuotaArn: `arn:aws:servicequotas:${source.region}:${source.ownerId}:ec2/${G_VCPU_QUOTA_CODE}`,
        QuotaCode: G_VCPU_QUOTA_CODE,
        QuotaName: 'Running On-Demand G and VT instances',
        Value: source.vcpuLimit() ?? UNLIMITED,
        Unit: 'None',
        Adjustable: true,
        GlobalQuota: false,
      },
    });
  });
  return router;
}
