import { z } from 'zod';

/**
 * Every environment variable the product reads, in one place. Each process calls
 * `loadConfig()` once at start-up and passes the result down; nothing else reads
 * `process.env`. The README's configuration table mirrors this file.
 */

const DEV_APP_SECRET = 'development-only-secret-never-use-in-production-000000';

const boolish = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  APP_SECRET: z.string().min(32, 'APP_SECRET must be at least 32 characters').optional(),
  PUBLIC_URL: z.url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUST_PROXY: boolish.optional(),
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  MAIL_FROM: z.string().min(3).default('Legend Cloud <no-reply@legendcloud.in>'),
  SUPPORT_EMAIL: z.email().default('support@legendcloud.in'),
  CONTACT_EMAIL: z.email().default('hello@legendcloud.in'),
  SANDBOX_URL: z.url().optional(),
  SANDBOX_PROFILE: z.enum(['fast', 'aws']).default('fast'),
});

export type Env = z.infer<typeof EnvSchema>;

export type Config = {
  env: Env['NODE_ENV'];
  production: boolean;
  port: number;
  host: string;
  dataDir: string;
  /** Unset only outside production: `npm start` then boots an embedded Postgres. */
  databaseUrl: string | undefined;
  appSecret: string;
  publicUrl: string;
  logLevel: Env['LOG_LEVEL'];
  trustProxy: boolean;
  mail: { smtpUrl: string | undefined; from: string };
  supportEmail: string;
  contactEmail: string;
  sandbox: {
    /** True when at least one outside service is played by the local sandbox. */
    enabled: boolean;
    /** Where the worker reaches the sandbox (the web process mounts it under /sandbox). */
    url: string;
    profile: Env['SANDBOX_PROFILE'];
  };
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the environment. Throws ConfigError naming every problem at once. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const raw = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  const env = parsed.data;
  const production = env.NODE_ENV === 'production';

  if (production) {
    const required = ['DATABASE_URL', 'APP_SECRET', 'PUBLIC_URL', 'SMTP_URL'] as const;
    const missing = required.filter((name) => env[name] === undefined);
    if (missing.length > 0) {
      throw new ConfigError(
        `Refusing to start in production on sandbox defaults. Set: ${missing.join(', ')}.`,
      );
    }
  }

  const port = env.PORT;
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const sandboxEnabled = !production && env.SMTP_URL === undefined;

  return {
    env: env.NODE_ENV,
    production,
    port,
    host: env.HOST ?? (production ? '0.0.0.0' : '127.0.0.1'),
    dataDir: env.DATA_DIR,
    databaseUrl: env.DATABASE_URL,
    appSecret: env.APP_SECRET ?? DEV_APP_SECRET,
    publicUrl,
    logLevel: env.LOG_LEVEL,
    trustProxy: env.TRUST_PROXY ?? production,
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM },
    supportEmail: env.SUPPORT_EMAIL,
    contactEmail: env.CONTACT_EMAIL,
    sandbox: {
      enabled: sandboxEnabled,
      url: (env.SANDBOX_URL ?? `http://127.0.0.1:${port}`).replace(/\/+$/, ''),
      profile: env.SANDBOX_PROFILE,
    },
  };
}

/** The database URL, which every process but the dev orchestrator must have. */
export function requireDatabaseUrl(config: Config): string {
  if (!config.databaseUrl) {
    throw new ConfigError('DATABASE_URL is not set. Use `npm start` for a local embedded Postgres.');
  }
  return config.databaseUrl;
}
