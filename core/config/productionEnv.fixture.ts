/**
 * For the configuration's tests: every variable production refuses to start without, with
 * plausible values (a real account's shape, nothing real), so a test adds only what it is about.
 */
export const PRODUCTION_ENV: Readonly<Record<string, string>> = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://app@db.internal/legend',
  APP_SECRET: 'x'.repeat(40),
  PUBLIC_URL: 'https://legendcloud.in',
  SMTP_URL: 'smtps://user:pass@smtp.example.com:465',
  PAYU_KEY: 'key',
  PAYU_SALT: 'salt',
  PAYU_CHECKOUT_URL: 'https://secure.payu.in/_payment',
  PAYU_API_URL: 'https://info.payu.in',
  GSTIN: '29ABCDE1234F1Z5',
  LEGAL_NAME: 'Legend Cloud Pvt Ltd',
  LEGAL_ADDRESS: 'Bengaluru, Karnataka, India',
  OPS_EMAIL: 'ops@legendcloud.in',
  AWS_REGION: 'ap-south-1',
  EC2_KEY_NAME: 'legend',
  EC2_PRIVATE_KEY_PEM: 'pem',
  EC2_SECURITY_GROUP_IDS: 'sg-0aaa',
  EC2_SUBNET_IDS: 'subnet-0aaa',
  EC2_AMI_ID: 'ami-0123456789abcdef0',
  WORKER_EGRESS_CIDRS: '203.0.113.10/32',
};
