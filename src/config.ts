import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  DEFAULT_FAILURE_STATUSES,
  DEFAULT_SUCCESS_STATUSES,
  type FollowStatuses,
} from './domain/follow.ts';
import { isScope, SCOPES, type Scope } from './domain/operations.ts';
import { DEFAULT_POLICY, type Policy, PolicyError, parsePolicy } from './domain/policy.ts';
import { parseRoleMembers, type RoleMembers, type RoleName } from './domain/roles.ts';

/**
 * Configuration comes from the environment, is validated once by zod, and fails with every
 * problem listed at once. Messages never quote a value, so no secret can leak through them:
 * a bad list entry is named by its position. Each secret may instead be read from a file named
 * by `<NAME>_FILE` (Docker and Kubernetes secrets).
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

/** `hint` follows "is missing": how to make one, where that is not obvious. */
const requiredText = (name: string, hint = '') =>
  z
    .string({ error: `${name} is missing${hint}` })
    .trim()
    .min(1, { error: `${name} is empty` });

const secret = (name: string, hint = '') =>
  requiredText(name, hint).refine((value) => !/\s/.test(value), {
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

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration such as `90s`, `30m`, `2h` or `7d`, in ms, between `min` and `max` (as written). */
const duration = (name: string, fallbackMs: number, min: string, max: string) =>
  z
    .string()
    .optional()
    .transform((value, ctx) => {
      const text = value?.trim() ?? '';
      if (text === '') return fallbackMs;
      const ms = durationMs(text);
      if (ms === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a duration such as 30m, 2h or 1d (a whole number and s, m, h or d)`,
        });
        return z.NEVER;
      }
      if (ms < (durationMs(min) as number) || ms > (durationMs(max) as number)) {
        ctx.addIssue({ code: 'custom', message: `${name} must be between ${min} and ${max}` });
        return z.NEVER;
      }
      return ms;
    });

function durationMs(text: string): number | undefined {
  const match = /^(\d{1,6})([smhd])$/.exec(text);
  const unit = match && DURATION_UNITS_MS[match[2] as string];
  return match && unit ? Number(match[1]) * unit : undefined;
}

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

/** A comma-separated list's entries, blanks dropped. */
function listEntries(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/**
 * "NAME: entry 2 is …" or "NAME: entries 1 and 3 are …": where the bad entries of a list are,
 * never what they say (a list may be a secret's, and an echo is one more place a value lands).
 */
function badEntriesProblem(name: string, positions: readonly number[], what: string): string {
  const last = positions.at(-1);
  const where =
    positions.length === 1
      ? `entry ${last} is`
      : `entries ${positions.slice(0, -1).join(', ')} and ${last} are`;
  return `${name}: ${where} ${what}`;
}

/** The 1-based positions of the entries `isBad` picks. */
function positionsOf(entries: readonly string[], isBad: (entry: string) => boolean): number[] {
  return entries.flatMap((entry, index) => (isBad(entry) ? [index + 1] : []));
}

const expectedScopes = z
  .string()
  .optional()
  .transform((value, ctx): Scope[] | undefined => {
    if (value === undefined || value.trim() === '') return undefined;
    const names = listEntries(value);
    const unknown = positionsOf(names, (name) => !isScope(name));
    if (unknown.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: badEntriesProblem(
          'PAYMENTS_EXPECTED_SCOPES',
          unknown,
          `not among the known scopes: ${SCOPES.join(', ')}`,
        ),
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
    LOG_LEVEL: logLevel('info'),
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

/** The variables holding a secret; each may instead be read from the file `<NAME>_FILE` names. */
const PAYMENTS_SECRETS = ['PAYMENTS_API_KEY'] as const;
const STORE_SECRETS = [
  'DATABASE_URL',
  'PAYOPS_SIGNING_KEY',
  'PAYOPS_ENCRYPTION_KEY',
  'PAYOPS_ENCRYPTION_OLD_KEYS',
] as const;
const BOT_SECRETS = [
  ...PAYMENTS_SECRETS,
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  ...STORE_SECRETS,
] as const;

interface SecretFiles {
  /** The environment with each `<NAME>_FILE` read into `<NAME>`. */
  env: Record<string, string | undefined>;
  problems: string[];
  /**
   * Variables already refused (a secret's file went wrong, a placeholder): the schemas' own
   * complaints about them would only echo it.
   */
  failed: Set<string>;
}

/**
 * Reads each secret given as `<NAME>_FILE`, less one trailing newline (what `echo` and most
 * editors leave). A problem names the variable and the path, never the file's content.
 */
function readSecretFiles(
  env: Record<string, string | undefined>,
  names: readonly string[],
): SecretFiles {
  const resolved = { ...env };
  const problems: string[] = [];
  const failed = new Set<string>();
  for (const name of names) {
    const fileVariable = `${name}_FILE`;
    const path = env[fileVariable]?.trim();
    if (!path) continue;
    if (env[name]?.trim()) {
      problems.push(`${name} and ${fileVariable} are both set: set only one of them`);
      failed.add(name);
      continue;
    }
    try {
      resolved[name] = readFileSync(path, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      problems.push(`${fileVariable}: the file ${path} cannot be read (${code})`);
      failed.add(name);
    }
  }
  return { env: resolved, problems, failed };
}

/**
 * What .env.example ships where a real value goes: a value saying `replace`, and its example Slack
 * IDs. A placeholder signing key is known to anyone who read the example; an example ID names no
 * one. The test of .env.example checks that each of its placeholders is recognised here.
 */
/** `replace` as a word of its own (`cus_replace`, `replace-with-…`), not `replacement`. */
const PLACEHOLDER_WORD = /(^|[^a-z])replace([^a-z]|$)/i;
const EXAMPLE_SLACK_ID = /^[UWSCGD](0123ABCD|0456EFGH)$/;

/**
 * Refuses each of `schemas`' variables that still holds a placeholder of .env.example, saying so
 * instead of what the schemas would say about it (a format slip would hide that it is public).
 */
function refusePlaceholders(secrets: SecretFiles, schemas: readonly z.ZodObject[]): void {
  for (const name of schemas.flatMap((schema) => Object.keys(schema.shape))) {
    const value = secrets.env[name];
    if (value === undefined || secrets.failed.has(name)) continue;
    const problem = placeholderProblem(name, value);
    if (problem === undefined) continue;
    secrets.problems.push(problem);
    secrets.failed.add(name);
  }
}

function placeholderProblem(name: string, value: string): string | undefined {
  if (PLACEHOLDER_WORD.test(value) || EXAMPLE_SLACK_ID.test(value.trim())) {
    const advice =
      name === 'PAYOPS_SIGNING_KEY'
        ? SIGNING_KEY_ADVICE
        : name === 'PAYOPS_ENCRYPTION_KEY'
          ? `set it to ${ENCRYPTION_KEY_FORMAT}`
          : 'set your own value';
    return `${name} is the placeholder of .env.example: ${advice}`;
  }
  const examples = positionsOf(listEntries(value), (entry) => EXAMPLE_SLACK_ID.test(entry));
  if (examples.length === 0) return undefined;
  return badEntriesProblem(
    name,
    examples,
    'from .env.example, whose IDs are placeholders: put the real IDs instead',
  );
}

/** Each issue in plain words, leaving out those about the variables in `skip`. */
export function problemsOf(error: z.ZodError, skip: ReadonlySet<string> = new Set()): string[] {
  return error.issues.flatMap((issue) => {
    const variable = String(issue.path[0] ?? '');
    if (skip.has(variable)) return [];
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
  const secrets = readSecretFiles(env, PAYMENTS_SECRETS);
  refusePlaceholders(secrets, [paymentsEnvSchema]);
  const result = paymentsEnvSchema.safeParse(secrets.env);
  const problems = [
    ...secrets.problems,
    ...(result.success ? [] : problemsOf(result.error, secrets.failed)),
  ];
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
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

const roleList = (name: string, role: RoleName, required: boolean) =>
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
      const { members, invalid } = parseRoleMembers(value, role);
      if (invalid.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: badEntriesProblem(
            name,
            positionsOf(listEntries(value), (entry) => invalid.includes(entry)),
            'neither a user ID (U…/W…) nor a user group ID (S…)',
          ),
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
  PAYOPS_READERS: roleList('PAYOPS_READERS', 'reader', true),
  PAYOPS_CHANNELS: z
    .string()
    .optional()
    .transform((value, ctx): ReadonlySet<string> | undefined => {
      if (value === undefined || value.trim() === '') return undefined;
      const ids = listEntries(value);
      const invalid = positionsOf(ids, (id) => !/^[CGD][A-Z0-9]{2,}$/.test(id));
      if (invalid.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: badEntriesProblem(
            'PAYOPS_CHANNELS',
            invalid,
            'not shaped like a channel ID (C…, G… or D…)',
          ),
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

const DAY_MS = 86_400_000;

const approvalsEnvSchema = z.object({
  PAYOPS_REQUESTERS: roleList('PAYOPS_REQUESTERS', 'requester', true),
  PAYOPS_APPROVERS: roleList('PAYOPS_APPROVERS', 'approver', true),
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
  PAYOPS_EXECUTION_LEASE_MS: wholeNumber('PAYOPS_EXECUTION_LEASE_MS', 120_000, 1_000, 3_600_000),
  PAYOPS_SWEEP_INTERVAL_MS: wholeNumber('PAYOPS_SWEEP_INTERVAL_MS', 30_000, 100, 3_600_000),
  PAYOPS_PREFLIGHT: z
    .enum(['warn', 'strict'], { error: 'PAYOPS_PREFLIGHT must be warn or strict' })
    .optional()
    .transform((value) => value ?? 'warn'),
  PAYOPS_REMIND_AFTER: duration('PAYOPS_REMIND_AFTER', 2 * 3_600_000, '1s', '7d'),
  // Replaced, not read: a success is no longer the end of following (a payout may be returned).
  PAYOPS_FINAL_STATUSES: z
    .string()
    .optional()
    .refine((value) => value === undefined || value.trim() === '', {
      error:
        'PAYOPS_FINAL_STATUSES is replaced by PAYOPS_SUCCESS_STATUSES and PAYOPS_FAILURE_STATUSES (a success is watched for a return for PAYOPS_RETURN_WINDOW): put its statuses in those two and remove it',
    }),
  PAYOPS_SUCCESS_STATUSES: statusList(
    'PAYOPS_SUCCESS_STATUSES',
    DEFAULT_SUCCESS_STATUSES,
    'after which the money reached its destination, e.g. completed,paid',
  ),
  PAYOPS_FAILURE_STATUSES: statusList(
    'PAYOPS_FAILURE_STATUSES',
    DEFAULT_FAILURE_STATUSES,
    'after which the money did not reach its destination or came back, e.g. failed,returned',
  ),
  PAYOPS_RETURN_WINDOW: duration('PAYOPS_RETURN_WINDOW', 60 * DAY_MS, '1m', '180d'),
  PAYOPS_FOLLOW_FOR: duration('PAYOPS_FOLLOW_FOR', 7 * DAY_MS, '1m', '90d'),
  PAYOPS_FOLLOW_INTERVAL_MS: wholeNumber('PAYOPS_FOLLOW_INTERVAL_MS', 60_000, 100, 3_600_000),
});

/** Provider status words, lower case, compared in any case; `defaults` when unset or blank. */
function statusList(name: string, defaults: readonly string[], meaning: string) {
  return z
    .string()
    .optional()
    .transform((value, ctx): ReadonlySet<string> => {
      if (value === undefined || value.trim() === '') return new Set(defaults);
      const words = listEntries(value);
      const bad = positionsOf(words, (word) => !/^[\p{L}\p{N}][\p{L}\p{N} _.-]{0,63}$/u.test(word));
      if (words.length === 0 || bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message:
            words.length === 0
              ? `${name} names no status: list the provider statuses ${meaning}`
              : badEntriesProblem(
                  name,
                  bad,
                  'not a status word (letters, digits, spaces, _ . -; at most 64 characters)',
                ),
        });
        return z.NEVER;
      }
      return new Set(words.map((word) => word.toLowerCase()));
    });
}

/** LOG_LEVEL, `fallback` when unset or blank. */
function logLevel(fallback: (typeof LOG_LEVELS)[number]) {
  return z
    .string()
    .optional()
    .transform((value, ctx) => {
      const level = (value ?? '').trim().toLowerCase() || fallback;
      if (!(LOG_LEVELS as readonly string[]).includes(level)) {
        ctx.addIssue({
          code: 'custom',
          message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`,
        });
        return z.NEVER;
      }
      return level as (typeof LOG_LEVELS)[number];
    });
}

const storeEnvSchema = z.object({
  DATABASE_URL: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const text = value?.trim();
      if (!text) return undefined;
      const parsed = parseDatabaseUrl(text);
      if ('problem' in parsed) {
        ctx.addIssue({ code: 'custom', message: parsed.problem });
        return z.NEVER;
      }
      return text;
    }),
  PAYOPS_DATA_DIR: z
    .string()
    .optional()
    .transform((value) => value?.trim() || './data'),
  PAYOPS_STORE_MUST_EXIST: z
    .enum(['true', 'false'], { error: 'PAYOPS_STORE_MUST_EXIST must be true or false' })
    .optional()
    .transform((value) => value === 'true'),
});

/** The store tools say only what matters to an operator unless asked. */
const storeToolEnvSchema = z.object({ LOG_LEVEL: logLevel('warn') });

function parsedUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * The passwords of a PostgreSQL URL as `pg` reads it (in its user info or `?password=`), or what
 * is wrong with it. A problem never quotes the URL: it holds the password.
 */
function parseDatabaseUrl(text: string): { passwords: string[] } | { problem: string } {
  if (!/^postgres(ql)?:\/\//.test(text)) {
    return {
      problem: 'DATABASE_URL must be a postgres:// URL (leave it unset for the embedded store)',
    };
  }
  // pg also accepts an empty host (a Unix socket named by ?host=), which URL refuses.
  const url = parsedUrl(text) ?? parsedUrl(text.replace('@/', '@localhost/'));
  if (!url) {
    return {
      problem:
        'DATABASE_URL is not a valid URL: percent-encode special characters in the user name and password, such as # / ? @ : as %23 %2F %3F %40 %3A',
    };
  }
  try {
    decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    const passwords = [url.password, password, url.searchParams.get('password') ?? ''];
    return { passwords: [...new Set(passwords.filter(Boolean))] };
  } catch {
    return {
      problem:
        'DATABASE_URL has a % that starts no valid percent-encoding in its user name or password: write a literal % as %25',
    };
  }
}

const MIN_SIGNING_KEY_LENGTH = 32;
const SIGNING_KEY_ADVICE = 'generate one with openssl rand -base64 32';
const MIN_SIGNING_KEY_VARIETY = 10;
const SIGNING_KEY_STRETCH = 8;

/**
 * Whether a key looks made by hand rather than drawn at random: fewer than 10 different
 * characters, or 8 in a row that recur in it or run in even steps (`aaaa…`, `abcd…`,
 * `passwordpassword…`). A random key of 32 characters or more (base64, hex) fails it about never.
 */
function looksHandMade(key: string): boolean {
  const characters = [...key];
  if (new Set(characters).size < MIN_SIGNING_KEY_VARIETY) return true;
  const seen = new Set<string>();
  for (let start = 0; start + SIGNING_KEY_STRETCH <= characters.length; start++) {
    const stretch = characters.slice(start, start + SIGNING_KEY_STRETCH);
    const text = stretch.join('');
    if (seen.has(text) || runsInEvenSteps(stretch)) return true;
    seen.add(text);
  }
  return false;
}

function runsInEvenSteps(characters: readonly string[]): boolean {
  const codes = characters.map((character) => character.codePointAt(0) as number);
  const step = (codes[1] as number) - (codes[0] as number);
  return codes.every((code, index) => index === 0 || code - (codes[index - 1] as number) === step);
}

const KEY_ID = /^[A-Za-z0-9_-]{1,16}$/;
/** Standard base64 of exactly 32 bytes, as `openssl rand -base64 32` prints it. */
const BASE64_OF_32_BYTES = /^[A-Za-z0-9+/]{43}=$/;
const ENCRYPTION_KEY_FORMAT = '<keyId>:<base64 of 32 bytes>, e.g. k1:$(openssl rand -base64 32)';

export interface EncryptionKey {
  /** Stored with what the key encrypts, so a rotated-out key still decrypts it. */
  id: string;
  key: Buffer;
}

/** `<keyId>:<base64 of 32 bytes>`, or what is wrong with it, never quoting it. */
function parseEncryptionKey(text: string): EncryptionKey | string {
  const colon = text.indexOf(':');
  if (colon < 0) return `is not ${ENCRYPTION_KEY_FORMAT}`;
  const id = text.slice(0, colon);
  const encoded = text.slice(colon + 1);
  if (!KEY_ID.test(id)) return 'has a key id that is not 1 to 16 of A-Z a-z 0-9 _ -';
  if (!BASE64_OF_32_BYTES.test(encoded)) {
    return 'has a key that is not the base64 of exactly 32 bytes (openssl rand -base64 32 makes one)';
  }
  return { id, key: Buffer.from(encoded, 'base64') };
}

const keysEnvSchema = z.object({
  PAYOPS_SIGNING_KEY: secret('PAYOPS_SIGNING_KEY', `: ${SIGNING_KEY_ADVICE}`)
    .superRefine((value, ctx) => {
      if (value.length < MIN_SIGNING_KEY_LENGTH) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYOPS_SIGNING_KEY must be at least ${MIN_SIGNING_KEY_LENGTH} characters: ${SIGNING_KEY_ADVICE}`,
        });
      } else if (looksHandMade(value)) {
        ctx.addIssue({
          code: 'custom',
          message: `PAYOPS_SIGNING_KEY is not random enough (too few different characters, or a part that repeats or runs in sequence): ${SIGNING_KEY_ADVICE}`,
        });
      }
    })
    .transform((value) => Buffer.from(value, 'utf8')),
  PAYOPS_ENCRYPTION_KEY: secret(
    'PAYOPS_ENCRYPTION_KEY',
    `: set it to ${ENCRYPTION_KEY_FORMAT}`,
  ).transform((value, ctx) => {
    const key = parseEncryptionKey(value);
    if (typeof key !== 'string') return key;
    ctx.addIssue({ code: 'custom', message: `PAYOPS_ENCRYPTION_KEY ${key}` });
    return z.NEVER;
  }),
  PAYOPS_ENCRYPTION_OLD_KEYS: z
    .string()
    .optional()
    .transform((value, ctx) => {
      const keys = listEntries(value ?? '').map(parseEncryptionKey);
      keys.forEach((key, index) => {
        if (typeof key === 'string') {
          ctx.addIssue({
            code: 'custom',
            message: `PAYOPS_ENCRYPTION_OLD_KEYS: entry ${index + 1} ${key}`,
          });
        }
      });
      return keys.filter((key) => typeof key !== 'string');
    }),
});

/** Each key's id must tell which key encrypted a value: no two keys may share one. */
function duplicateKeyIdProblems(current: EncryptionKey, old: readonly EncryptionKey[]): string[] {
  const keys = [current, ...old];
  return old.flatMap((key, index) => {
    const first = keys.findIndex((other) => other.id === key.id);
    if (first === index + 1) return [];
    const other = first === 0 ? 'PAYOPS_ENCRYPTION_KEY' : `entry ${first}`;
    return [
      `PAYOPS_ENCRYPTION_OLD_KEYS: entry ${index + 1} has the same key id as ${other}: give each key an id of its own`,
    ];
  });
}

/** A fresh signing key and encryption key, for environments that make their own (demo, tests). */
export function generateKeyEnv(): { PAYOPS_SIGNING_KEY: string; PAYOPS_ENCRYPTION_KEY: string } {
  return {
    PAYOPS_SIGNING_KEY: randomBytes(32).toString('base64'),
    PAYOPS_ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
  };
}

const LEASE_MARGIN_MS = 500;

export interface ApprovalsConfig {
  requesters: RoleMembers;
  approvers: RoleMembers;
  channelId: string;
  policyFile: string | undefined;
  /** How long an execution may run before another process may call its outcome unknown. */
  executionLeaseMs: number;
  sweepIntervalMs: number;
  /** `strict`: a failed pre-flight check refuses the request; `warn`: the card shows it. */
  preflight: 'warn' | 'strict';
  /** A request pending this long nudges its approvers once (and again in its last hour). */
  remindAfterMs: number;
}

/** Following submitted writes at the provider until a final status (by reading). */
export interface FollowConfig {
  /** Lower case; none in both. */
  statuses: FollowStatuses;
  /** Following stops this long after it started, unless a success was seen. */
  forMs: number;
  /** After a success, how long it is still followed for a return or reversal. */
  returnWindowMs: number;
  /** How often each record is read while it changes (15 minutes once unchanged for an hour). */
  intervalMs: number;
}

/** Where the store is. */
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

export interface EncryptionConfig {
  /** Encrypts everything new. */
  current: EncryptionKey;
  /** Rotated out: they only decrypt what they encrypted before. */
  old: EncryptionKey[];
}

export interface Config extends PaymentsToolConfig {
  slack: SlackConfig;
  approvals: ApprovalsConfig;
  follow: FollowConfig;
  store: StoreConfig;
  /** Keys the fingerprints and the audit chain. */
  signingKey: Buffer;
  encryption: EncryptionConfig;
}

/** The bot's whole configuration: Payments API, Slack and logging, every problem at once. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const secrets = readSecretFiles(env, BOT_SECRETS);
  refusePlaceholders(secrets, [
    paymentsEnvSchema,
    slackEnvSchema,
    approvalsEnvSchema,
    storeEnvSchema,
    keysEnvSchema,
  ]);
  const payments = paymentsEnvSchema.safeParse(secrets.env);
  const slack = slackEnvSchema.safeParse(secrets.env);
  const approvals = approvalsEnvSchema.safeParse(secrets.env);
  const stored = storeEnvSchema.safeParse(secrets.env);
  const keys = keysEnvSchema.safeParse(secrets.env);
  const problems = [
    ...secrets.problems,
    ...[payments, slack, approvals, stored, keys].flatMap((result) =>
      result.success ? [] : problemsOf(result.error, secrets.failed),
    ),
  ];
  if (
    !payments.success ||
    !slack.success ||
    !approvals.success ||
    !stored.success ||
    !keys.success
  ) {
    throw new ConfigError(problems);
  }
  const s = slack.data;
  const a = approvals.data;
  // The lease must outlast the longest write (its deadline includes waiting for a connection),
  // with room for the steps between the claim and the call, or a live call could be declared
  // abandoned.
  if (a.PAYOPS_EXECUTION_LEASE_MS < payments.data.PAYMENTS_WRITE_TIMEOUT_MS + LEASE_MARGIN_MS) {
    problems.push(
      `PAYOPS_EXECUTION_LEASE_MS must be at least PAYMENTS_WRITE_TIMEOUT_MS + ${LEASE_MARGIN_MS} ms`,
    );
  }
  const both = [...a.PAYOPS_SUCCESS_STATUSES].filter((word) => a.PAYOPS_FAILURE_STATUSES.has(word));
  if (both.length > 0) {
    problems.push(
      `PAYOPS_SUCCESS_STATUSES and PAYOPS_FAILURE_STATUSES both list ${both.join(', ')}: a status is a success or a failure, not both`,
    );
  }
  problems.push(
    ...duplicateKeyIdProblems(
      keys.data.PAYOPS_ENCRYPTION_KEY,
      keys.data.PAYOPS_ENCRYPTION_OLD_KEYS,
    ),
  );
  if (problems.length > 0) throw new ConfigError(problems);
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
      preflight: a.PAYOPS_PREFLIGHT,
      remindAfterMs: a.PAYOPS_REMIND_AFTER,
    }),
    follow: Object.freeze({
      statuses: Object.freeze({
        success: a.PAYOPS_SUCCESS_STATUSES,
        failure: a.PAYOPS_FAILURE_STATUSES,
      }),
      forMs: a.PAYOPS_FOLLOW_FOR,
      returnWindowMs: a.PAYOPS_RETURN_WINDOW,
      intervalMs: a.PAYOPS_FOLLOW_INTERVAL_MS,
    }),
    ...toStoreToolConfig(stored.data, keys.data),
  });
}

/** The store and its keys, for the commands that work on the store alone (`payops audit …`). */
export interface StoreToolConfig {
  store: StoreConfig;
  signingKey: Buffer;
  encryption: EncryptionConfig;
  logLevel: (typeof LOG_LEVELS)[number];
}

export function loadStoreToolConfig(
  env: Record<string, string | undefined> = process.env,
): StoreToolConfig {
  const secrets = readSecretFiles(env, STORE_SECRETS);
  refusePlaceholders(secrets, [storeEnvSchema, keysEnvSchema]);
  const stored = storeEnvSchema.safeParse(secrets.env);
  const keys = keysEnvSchema.safeParse(secrets.env);
  const tool = storeToolEnvSchema.safeParse(secrets.env);
  const problems = [
    ...secrets.problems,
    ...[stored, keys, tool].flatMap((result) =>
      result.success ? [] : problemsOf(result.error, secrets.failed),
    ),
  ];
  if (!stored.success || !keys.success || !tool.success) throw new ConfigError(problems);
  problems.push(
    ...duplicateKeyIdProblems(
      keys.data.PAYOPS_ENCRYPTION_KEY,
      keys.data.PAYOPS_ENCRYPTION_OLD_KEYS,
    ),
  );
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({
    ...toStoreToolConfig(stored.data, keys.data),
    logLevel: tool.data.LOG_LEVEL,
  });
}

function toStoreToolConfig(
  stored: z.output<typeof storeEnvSchema>,
  keys: z.output<typeof keysEnvSchema>,
): Omit<StoreToolConfig, 'logLevel'> {
  return Object.freeze({
    store: Object.freeze({
      databaseUrl: stored.DATABASE_URL,
      dataDir: stored.PAYOPS_DATA_DIR,
      mustExist: stored.PAYOPS_STORE_MUST_EXIST,
    }),
    // A Buffer cannot be frozen; the objects holding the keys are.
    signingKey: keys.PAYOPS_SIGNING_KEY,
    encryption: Object.freeze({
      current: Object.freeze(keys.PAYOPS_ENCRYPTION_KEY),
      old: Object.freeze(keys.PAYOPS_ENCRYPTION_OLD_KEYS.map((key) => Object.freeze(key))),
    }) as EncryptionConfig,
  });
}

/** The policy in the file at `path` (PAYOPS_POLICY_FILE), or the defaults when none is set. */
export function loadPolicy(path: string | undefined): Policy {
  if (path === undefined || path.trim() === '') return DEFAULT_POLICY;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new PolicyError(path, [`PAYOPS_POLICY_FILE cannot be read (${code})`]);
  }
  return parsePolicy(text, path);
}

/** Every secret value in the configuration, as it may be written, for the logger to scrub. */
export function secretsOf(config: Config | PaymentsToolConfig | StoreToolConfig): string[] {
  const secrets: string[] = [];
  if ('payments' in config) secrets.push(config.payments.apiKey);
  if ('slack' in config) {
    secrets.push(config.slack.botToken, config.slack.signingSecret);
    if (config.slack.appToken) secrets.push(config.slack.appToken);
  }
  if ('store' in config) {
    if (config.store.databaseUrl) {
      const parsed = parseDatabaseUrl(config.store.databaseUrl);
      if ('passwords' in parsed) secrets.push(...parsed.passwords);
    }
    secrets.push(config.signingKey.toString('utf8'));
    for (const { key } of [config.encryption.current, ...config.encryption.old]) {
      secrets.push(key.toString('base64'));
    }
  }
  return secrets;
}
