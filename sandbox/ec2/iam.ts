import { createHash, randomUUID } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { readRawBody } from '../body.ts';
import { leaf, node } from './xml.ts';

/**
 * A stand-in for IAM's Query API (`Action=…&Version=2010-05-08`, XML in IAM's namespace), enough
 * for the preflight's question: does the instance profile every machine launches with exist?
 * The account's profiles are the sandbox's (`legend-cloud-pc` and any `_control` adds), and IAM
 * denials come from the same deny list as EC2's.
 */

const NAMESPACE = 'https://iam.amazonaws.com/doc/2010-05-08/';

export type IamSource = {
  ownerId: string;
  instanceProfiles(): string[];
  /** Throws when the action is denied; the error's message is answered. */
  checkAuthorized(iamAction: string): void;
};

function errorDocument(
  type: 'Sender' | 'Receiver',
  code: string,
  message: string,
  requestId: string,
): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ErrorResponse xmlns="${NAMESPACE}">${node('Error', leaf('Type', type), leaf('Code', code), leaf('Message', message))}${leaf('RequestId', requestId)}</ErrorResponse>`;
}

/** A stable id of IAM's shape for a name (AIPA… for profiles, AROA… for roles). */
function idOf(prefix: string, name: string): string {
  return `${prefix}${createHash('sha256').update(name).digest('hex').slice(0, 17).toUpperCase()}`;
}

export function createSandboxIam(source: IamSource): Router {
  const router = new Router();
  router.post('/', async (ctx: Context) => {
    const requestId = randomUUID();
    ctx.set('x-amzn-requestid', requestId);
    ctx.type = 'text/xml';
    const fail = (status: number, code: string, message: string) => {
      ctx.status = status;
      ctx.body = errorDocument('Sender', code, message, requestId);
    };
    const raw = await readRawBody(ctx.req, () => new Error('The request body is too large.'));
    if (!ctx.get('authorization')) {
      fail(403, 'InvalidClientTokenId', 'The security token included in the request is invalid.');
      return;
    }
    const params = new URLSearchParams(raw.toString('utf8'));
    const action = params.get('Action') ?? '';
    try {
      source.checkAuthorized(`iam:${action}`);
    } catch (error) {
      fail(403, 'AccessDenied', (error as Error).message);
      return;
    }
    if (action !== 'GetInstanceProfile') {
      fail(400, 'InvalidAction', `The sandbox does not simulate the IAM action ${action}.`);
      return;
    }
    const name = params.get('InstanceProfileName') ?? '';
    if (!/^[\w+=,.@-]{1,128}$/.test(name)) {
      fail(
        400,
        'ValidationError',
        `1 validation error detected: Value '${name}' at 'instanceProfileName' failed to satisfy constraint`,
      );
      return;
    }
    if (!source.instanceProfiles().includes(name)) {
      fail(404, 'NoSuchEntity', `Instance Profile ${name} cannot be found.`);
      return;
    }
    const created = '2024-01-01T00:00:00Z';
    const role =
      leaf('Path', '/') +
      leaf('RoleName', name) +
      leaf('RoleId', idOf('AROA', name)) +
      leaf('Arn', `arn:aws:iam::${source.ownerId}:role/${name}`) +
      leaf('CreateDate', created);
    ctx.status = 200;
    ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<GetInstanceProfileResponse xmlns="${NAMESPACE}">${node(
      'GetInstanceProfileResult',
      node(
        'InstanceProfile',
        leaf('InstanceProfileId', idOf('AIPA', name)),
        node('Roles', node('member', role)),
        leaf('InstanceProfileName', name),
        leaf('Path', '/'),
        leaf('Arn', `arn:aws:iam::${source.ownerId}:instance-profile/${name}`),
        leaf('CreateDate', created),
      ),
    )}${node('ResponseMetadata', leaf('RequestId', requestId))}</GetInstanceProfileResponse>`;
  });
  return router;
}
