import { z } from 'zod';
import { parseRoleMembers, type RoleMembers } from './app/access.ts';
import { isScope, SCOPES, type Scope } from './domain/operations.ts';

/**
 * Configuration comes from the environment, is validated once by zod, and fails with every
 * problem listed at once. Messages never quote a value, so no secret can leak through them.
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

const requiredText = (name: string) =>
  z
    .string({ error: `${name} is missing` })
    .trim()
    .min(1, { error: `${name} is empty` });

const secret = (name: string) =>
  requiredText(name).refine((value) => !/\s/.test(value), {
    error: `${name} contains white space (a copy-paste slip?)`,
  });

const wholeNumber = (name: string, fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return fallback;
      if (!/^\d+$/.test(value.trim())) {
        ctx.addIssue({ code: 'custom', message: `${name} must be a whole number` });
        return z.NEVER;
      }
      const parsed = Number(value.trim());
      if (parsed < min || parsed > max) {
        ctx.addIssue({ code: 'custom', message: `${name} must be between ${min} and ${max}` });
        return z.NEVER;
      }
      return parsed;
    });

const baseUrl = requiredText('PAYMENTS_BASE_URL').transform((value, ctx) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'PAYMENTS_BASE_URL is not a valid URL' });
    return z.NEVER;
  }
  const problems: string[] = [];
  if (url.username || url.password) problems.push('must not contain credentials');
  if (url.search || url.hash) problems.push('must not have a query or fragment');
  if (!url.pathname.replace(/\/+$/, '').endsWith('/v1')) problems.push('must end in /v1');
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
    problems.push('must use https:// (plain http:// is allowed only for a loopback sandbox)');
  }
  for (const problem of problems) {
    ctx.addIssue({ code: 'custom', message: `PAYMENTS_BASE_URL ${problem}` });
  }
  if (problems.length > 0) return z.NEVER;
  return url.origin + url.pathname.replace(/\/+$/, '');
});

const expectedScopes = z
  .string()
  .optional()
  .transform((value, ctx): Scope[] | undefined => {
    if (value === undefined || value.trim() === '') return undefined;
    const names = value
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
    const unknown = names.filter((name) => !isScope(name));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `PAYMENTS_EXPECTED_SCOPES has unknown scope(s) ${unknown.join(', ')}; known scopes are ${SCOPES.join(', ')}`,
      });
      return z.NEVER;
    }
    if (!names.includes('read')) {
      ctx.addIssue({
        code: 'custom',
        message:
          'PAYMENTS_EXPECTED_SCOPES must include read: every authenticated operation needs it',
      });
      return z.NEVER;
    }
    return SCOPES.filter((scope) => names.includes(scope));
  });

export const paymentsEnvSchema = z
  .object({
    PAYMENTS_BASE_URL: baseUrl,
    PAYMENTS_API_KEY: secret('PAYMENTS_API_KEY'),
    PAYMENTS_EXPECTED_CUSTOMER_ID: requiredText('PAYMENTS_EXPECTED_CUSTOMER_ID'),
    PAYMENTS_EXPECTED_SCOPES: expectedScopes,
    PAYMENTS_TIMEOUT_MS: wholeNumber('PAYMENTS_TIMEOUT_MS', 10_000, 100, 120_000),
    PAYMENTS_WRITE_TIMEOUT_MS: wholeNumber('PAYMENTS_WRITE_TIMEOUT_MS', 30_000, 100, 300_000),
    PAYMENTS_MAX_IN_FLIGHT: wholeNumber('PAYMENTS_MAX_IN_FLIGHT', 16, 1, 256),
    PAYMENTS_READ_RETRIES: wholeNumber('PAYMENTS_READ_RETRIES', 2, 0, 5),
    LOG_LEVEL: z
      .string()
      .optional()
      .transform((value, ctx) => {
        const level = (value ?? '').trim().toLowerCase() || 'info';
        if (!(LOG_LEVELS as readonly string[]).includes(level)) {
          ctx.addIssue({
            code: 'custom',
            message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`,
          });
          return z.NEVER;
        }
        return level as (typeof LOG_LEVELS)[number];
      }),
  })
  .superRefine((env, ctx) => {
    // A write must be given at least as long as a read: it is the call that cannot be retried.
    if (env.PAYMENTS_WRITE_TIMEOUT_MS < env.PAYMENTS_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['PAYMENTS_WRITE_TIMEOUT_MS'],
        message: 'PAYMENTS_WRITE_TIMEOUT_MS must not be shorter than PAYMENTS_TIMEOUT_MS',
      });
    }
  });

export interface PaymentsConfig {
  baseUrl: string;
  apiKey: string;
  expectedCustomerId: string;
  expectedScopes: Scope[] | undefined;
  readTimeoutMs: number;
  writeTimeoutMs: number;
  maxInFlight: number;
  readRetries: number;
}

export interface LoggingConfig {
  level: (typeof LOG_LEVELS)[number];
}

export interface PaymentsToolConfig {
  payments: PaymentsConfig;
  logging: LoggingConfig;
}

/** The configuration is invalid; `problems` lists each one in plain words. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Configuration is invalid:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function problemsOf(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const variable = String(issue.path[0] ?? '');
    // Our own messages already name the variable; zod's generic ones do not.
    return variable && !issue.message.includes(variable)
      ? `${variable}: ${issue.message}`
      : issue.message;
  });
}

/** What `doctor` and the sandbox tools need: the Payments API side only. */
export function loadPaymentsToolConfig(
  env: Record<string, string | undefined> = process.env,
): PaymentsToolConfig {
  const result = paymentsEnvSchema.safeParse(env);
  if (!result.success) throw new ConfigError(problemsOf(result.error));
  return toPaymentsToolConfig(result.data);
}

export function toPaymentsToolConfig(env: z.output<typeof paymentsEnvSchema>): PaymentsToolConfig {
  return Object.freeze({
    payments: Object.freeze({
      baseUrl: env.PAYMENTS_BASE_URL,
      apiKey: env.PAYMENTS_API_KEY,
      expectedCustomerId: env.PAYMENTS_EXPECTED_CUSTOMER_ID,
      expectedScopes: env.PAYMENTS_EXPECTED_SCOPES,
      readTimeoutMs: env.PAYMENTS_TIMEOUT_MS,
      writeTimeoutMs: env.PAYMENTS_WRITE_TIMEOUT_MS,
      maxInFlight: env.PAYMENTS_MAX_IN_FLIGHT,
      readRetries: env.PAYMENTS_READ_RETRIES,
    }),
    logging: Object.freeze({ level: env.LOG_LEVEL }),
  });
}

const roleList = (name: string, required: boolean) =>
  z
    .string()
    .optional()
    .transform((value, ctx): RoleMembers | undefined => {
      if (value === undefined || value.trim() === '') {
        if (required)
          ctx.addIssue({
            code: 'custom',
            message: `${name} is missing: list the Slack user IDs (U…) or user group IDs (S…) who may use payops`,
          });
        return undefined;
      }
      const { members, invalid } = parseRoleMembers(value);
      if (invalid.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} has ${invalid.length} entr${invalid.length === 1 ? 'y' : 'ies'} that are neither a user ID (U…/W…) nor a user group ID (S…): ${invalid.map((entry) => entry.slice(0, 20)).join(', ')}`,
        });
        return z.NEVER;
      }
      return members;
    });

const slackEnvSchema = z.object({
  SLACK_BOT_TOKEN: secret('SLACK_BOT_TOKEN').refine((value) => value.startsWith('xoxb-'), {
    error: 'SLACK_BOT_TOKEN must be a bot token (it starts with xoxb-)',
  }),
  SLACK_SIGNING_SECRET: secret('SLACK_SIGNING_SECRET'),
  SLACK_APP_TOKEN: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : undefined))
    .refine((value) => value === undefined || value.startsWith('xapp-'), {
      error: 'SLACK_APP_TOKEN must be an app-level token (it starts with xapp-)',
    }),
  SLACK_API_URL: z
    .string()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined;
      try {
        const url = new URL(value.trim());
        if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
          throw new Error('insecure');
        }
        return url.href.endsWith('/') ? url.href : `${url.href}/`;
      } catch {
        ctx.addIssue({
          code: 'custom',
          message: 'SLACK_API_URL must be an https:// URL (http:// only for a loopback emulation)',
        });
        return z.NEVER;
      }
    }),
  PAYOPS_COMMAND: z
    .string()
    .optional()
    .transform((value) => value?.trim() || '/pay')
    .refine((value) => /^\/[a-z0-9_-]{1,31}$/.test(value), {
      error: 'PAYOPS_COMMAND must be a slash command like /pay (lower case, at most 32 characters)',
    }),
  PAYOPS_READERS: roleList('PAYOPS_READERS', true),
  PAYOPS_CHANNELS: z
    .string()
    .optional()
    .transform((value, ctx): ReadonlySet<string> | undefined => {
      if (value === undefined || value.trim() === '') return undefined;
      const ids = value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
      const invalid = ids.filter((id) => !/^[CGD][A-Z0-9]{2,}$/.test(id));
      if (invalid.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYOPS_CHANNELS must list channel IDs (C…, G… or D…); not IDs: ${invalid.map((id) => id.slice(0, 20)).join(', ')}`,
        });
        return z.NEVER;
      }
      return new Set(ids);
    }),
  PAYOPS_ACCESS_ADMIN: z
    .string()
    .optional()
    .transform((value) => value?.trim() || 'your payops administrator'),
  PORT: wholeNumber('PORT', 3000, 0, 65_535),
  HOST: z
    .string()
    .optional()
    .transform((value) => value?.trim() || '0.0.0.0'),
  PAYOPS_MAX_BACKLOG: wholeNumber('PAYOPS_MAX_BACKLOG', 2_000, 1, 100_000),
  PAYOPS_SLACK_RATE_SCALE: wholeNumber('PAYOPS_SLACK_RATE_SCALE', 1, 1, 1_000),
});

const approvalsEnvSchema = z.object({
  PAYOPS_REQUESTERS: roleList('PAYOPS_REQUESTERS', true),
  PAYOPS_APPROVERS: roleList('PAYOPS_APPROVERS', true),
  PAYOPS_APPROVALS_CHANNEL: requiredText('PAYOPS_APPROVALS_CHANNEL').refine(
    (value) => /^[CG][A-Z0-9]{2,}$/.test(value),
    {
      error: 'PAYOPS_APPROVALS_CHANNEL must be a channel ID (C… or G…), where approval messages go',
    },
  ),
  PAYOPS_POLICY_FILE: z
    .string()
    .optional()
    .transform((value) => value?.trim() || undefined),
  DATABASE_URL: z
    .string()
    .optional()
    .transform((value) => value?.trim() || undefined)
    .refine((value) => value === undefined || /^postgres(ql)?:\/\//.test(value), {
      error: 'DATABASE_URL must be a postgres:// URL (leave it unset for the embedded store)',
    }),
  PAYOPS_DATA_DIR: z
    .string()
    .optional()
    .transform((value) => value?.trim() || './data'),
  PAYOPS_STORE_MUST_EXIST: z
    .enum(['true', 'false'], { error: 'PAYOPS_STORE_MUST_EXIST must be true or false' })
    .optional()
    .transform((value) => value === 'true'),
  PAYOPS_EXECUTION_LEASE_MS: wholeNumber('PAYOPS_EXECUTION_LEASE_MS', 120_000, 1_000, 3_600_000),
  PAYOPS_SWEEP_INTERVAL_MS: wholeNumber('PAYOPS_SWEEP_INTERVAL_MS', 30_000, 100, 3_600_000),
});

const LEASE_MARGIN_MS = 500;

export interface ApprovalsConfig {
  requesters: RoleMembers;
  approvers: RoleMembers;
  channelId: string;
  policyFile: string | undefined;
  /** How long an execution may run before another process may call its outcome unknown. */
  executionLeaseMs: number;
  sweepIntervalMs: number;
}

export interface StoreConfig {
  /** PostgreSQL when set; otherwise embedded PGlite in `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** Never create an embedded store: refuse to start without one. */
  mustExist: boolean;
}

export interface SlackConfig {
  botToken: string;
  signingSecret: string;
  appToken: string | undefined;
  apiUrl: string | undefined;
  command: string;
  readers: RoleMembers;
  channels: ReadonlySet<string> | undefined;
  /** Who to ask for access, named in refusals (a person, a channel, a user group mention). */
  accessAdmin: string;
  port: number;
  /** Interface the HTTP server binds: all by default; `127.0.0.1` for local rehearsals. */
  host: string;
  /**
   * Slack requests in progress at once; past this a request is answered "overloaded, nothing
   * was done" instead of queueing without bound.
   */
  maxBacklog: number;
  /**
   * Slack's rate limits as the outbox paces itself, multiplied: 1 for Slack itself; more only
   * against an emulation scaled alike (rehearsals, the benchmark).
   */
  rateLimitScale: number;
}

export interface Config extends PaymentsToolConfig {
  slack: SlackConfig;
  approvals: ApprovalsConfig;
  store: StoreConfig;
}

/** The bot's whole configuration: Payments API, Slack and logging, every problem at once. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const payments = paymentsEnvSchema.safeParse(env);
  const slack = slackEnvSchema.safeParse(env);
  const approvals = approvalsEnvSchema.safeParse(env);
  const problems = [payments, slack, approvals].flatMap((result) =>
    result.success ? [] : problemsOf(result.error),
  );
  if (!payments.success || !slack.success || !approvals.success) throw new ConfigError(problems);
  const s = slack.data;
  const a = approvals.data;
  // The lease must outlast the longest write (its deadline includes waiting for a connection),
  // with room for the steps between the claim and the call, or a live call could be declared
  // abandoned.
  if (a.PAYOPS_EXECUTION_LEASE_MS < payments.data.PAYMENTS_WRITE_TIMEOUT_MS + LEASE_MARGIN_MS) {
    throw new ConfigError([
      `PAYOPS_EXECUTION_LEASE_MS must be at least PAYMENTS_WRITE_TIMEOUT_MS + ${LEASE_MARGIN_MS} ms`,
    ]);
  }
  return Object.freeze({
    ...toPaymentsToolConfig(payments.data),
    slack: Object.freeze({
      botToken: s.SLACK_BOT_TOKEN,
      signingSecret: s.SLACK_SIGNING_SECRET,
      appToken: s.SLACK_APP_TOKEN,
      apiUrl: s.SLACK_API_URL,
      command: s.PAYOPS_COMMAND,
      readers: s.PAYOPS_READERS as RoleMembers,
      channels: s.PAYOPS_CHANNELS,
      accessAdmin: s.PAYOPS_ACCESS_ADMIN,
      port: s.PORT,
      host: s.HOST,
      maxBacklog: s.PAYOPS_MAX_BACKLOG,
      rateLimitScale: s.PAYOPS_SLACK_RATE_SCALE,
    }),
    approvals: Object.freeze({
      requesters: a.PAYOPS_REQUESTERS as RoleMembers,
      approvers: a.PAYOPS_APPROVERS as RoleMembers,
      channelId: a.PAYOPS_APPROVALS_CHANNEL,
      policyFile: a.PAYOPS_POLICY_FILE,
      executionLeaseMs: a.PAYOPS_EXECUTION_LEASE_MS,
      sweepIntervalMs: a.PAYOPS_SWEEP_INTERVAL_MS,
    }),
    store: Object.freeze({
      databaseUrl: a.DATABASE_URL,
      dataDir: a.PAYOPS_DATA_DIR,
      mustExist: a.PAYOPS_STORE_MUST_EXIST,
    }),
  });
}

/** Every secret value in the configuration, for the logger to scrub. */
export function secretsOf(config: Config | PaymentsToolConfig): string[] {
  const secrets = [config.payments.apiKey];
  if ('slack' in config) {
    secrets.push(config.slack.botToken, config.slack.signingSecret);
    if (config.slack.appToken) secrets.push(config.slack.appToken);
    if (config.store.databaseUrl) {
      const password = new URL(config.store.databaseUrl).password;
      if (password) secrets.push(decodeURIComponent(password));
    }
  }
  return secrets;
}
