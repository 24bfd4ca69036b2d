/**
 * EC2's error codes with the HTTP status AWS answers them with. The status matters beyond
 * looks: the SDK retries 5xx and throttling codes by itself, so a wrong status changes how
 * the app behaves against the sandbox compared with AWS.
 */

const STATUS: Record<string, number> = {
  AuthFailure: 401,
  DryRunOperation: 412,
  UnauthorizedOperation: 403,
  // A server error in AWS's own table of codes; observed on the wire as 500 (the SDK retries it).
  InsufficientInstanceCapacity: 500,
  InternalError: 500,
  RequestLimitExceeded: 503,
  Unavailable: 503,
};

function statusFor(code: string): number {
  return STATUS[code] ?? 400;
}

export class Ec2Error extends Error {
  readonly code: string;
  readonly status: number;

  constructor(code: string, message: string, status?: number) {
    super(message);
    this.name = 'Ec2Error';
    this.code = code;
    this.status = status ?? statusFor(code);
  }
}

export function notFound(ids: string[]): Ec2Error {
  return ids.length === 1
    ? new Ec2Error('InvalidInstanceID.NotFound', `The instance ID '${ids[0]}' does not exist`)
    : new Ec2Error('InvalidInstanceID.NotFound', `The instance IDs '${ids.join(', ')}' do not exist`);
}

export function invalidValue(parameter: string, value: string, why?: string): Ec2Error {
  return new Ec2Error(
    'InvalidParameterValue',
    `Invalid value '${value}' for ${parameter}.${why ? ` ${why}` : ''}`,
  );
}
