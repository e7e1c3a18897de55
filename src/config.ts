import { z } from 'zod';
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
