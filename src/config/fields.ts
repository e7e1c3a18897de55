import { z } from 'zod';

/**
 * How one variable is read: each builder takes the variable's name, says what is wrong in words
 * that name it and never quote its value, and registers the name, so a section lists each field
 * once and the loader knows which variable feeds it.
 */

export interface Variable {
  name: string;
  /** May instead be read from the file `<NAME>_FILE` names; scrubbed from every log line. */
  secret: boolean;
  /** Set by the rehearsals and the benchmark, never by an operator (docs/, not the README). */
  rehearsal: boolean;
  /** What to do when it still holds .env.example's placeholder. */
  placeholderAdvice: string;
}

const VARIABLES = new WeakMap<z.ZodType, Variable>();

/** Registers `schema` as the reading of the variable `name`. */
export function variable<T extends z.ZodType>(
  name: string,
  schema: T,
  about: Partial<Omit<Variable, 'name'>> = {},
): T {
  VARIABLES.set(schema, {
    name,
    secret: false,
    rehearsal: false,
    placeholderAdvice: 'set your own value',
    ...about,
  });
  return schema;
}

/** The variable `schema` reads; a field built without `variable` is a mistake in a section. */
export function variableOf(schema: z.ZodType): Variable {
  const found = VARIABLES.get(schema);
  if (!found) throw new Error('a configuration field names no variable');
  return found;
}

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `hint` follows "is missing": how to make one, where that is not obvious. */
function text(name: string, hint: string) {
  return z
    .string({ error: `${name} is missing${hint}` })
    .trim()
    .min(1, { error: `${name} is empty` });
}

export const requiredText = (name: string, hint = '') => variable(name, text(name, hint));

export const secret = (
  name: string,
  { hint = '', placeholderAdvice }: { hint?: string; placeholderAdvice?: string } = {},
) =>
  variable(
    name,
    text(name, hint).refine((value) => !/\s/.test(value), {
      error: `${name} contains white space (a copy-paste slip?)`,
    }),
    { secret: true, ...(placeholderAdvice ? { placeholderAdvice } : {}) },
  );

/** Optional text, trimmed; `fallback` when unset or blank. */
export const textOr = <T extends string | undefined>(name: string, fallback: T) =>
  variable(
    name,
    z
      .string()
      .optional()
      .transform((value) => value?.trim() || fallback),
  );

export const wholeNumber = (
  name: string,
  fallback: number,
  min: number,
  max: number,
  about: { rehearsal?: boolean } = {},
) =>
  variable(
    name,
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
      }),
    about,
  );

const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration such as `90s`, `30m`, `2h` or `7d`, in ms, between `min` and `max` (as written). */
export const duration = (name: string, fallbackMs: number, min: string, max: string) =>
  variable(
    name,
    z
      .string()
      .optional()
      .transform((value, ctx) => {
        const written = value?.trim() ?? '';
        if (written === '') return fallbackMs;
        const ms = durationMs(written);
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
      }),
  );

function durationMs(written: string): number | undefined {
  const match = /^(\d{1,6})([smhd])$/.exec(written);
  const unit = match && DURATION_UNITS_MS[match[2] as string];
  return match && unit ? Number(match[1]) * unit : undefined;
}

/** One of `values`, `fallback` when unset. */
export const oneOf = <const T extends readonly [string, ...string[]]>(
  name: string,
  values: T,
  fallback: T[number],
) =>
  variable(
    name,
    z
      .enum(values, { error: `${name} must be ${values.join(' or ')}` })
      .optional()
      .transform((value) => value ?? fallback),
  );

/** LOG_LEVEL, `fallback` when unset or blank. */
export const logLevel = (fallback: LogLevel) =>
  variable(
    'LOG_LEVEL',
    z
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
        return level as LogLevel;
      }),
  );

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** https://, or http:// to this machine only (a sandbox, an emulation). */
export function isSecureOrLoopback(url: URL): boolean {
  const loopback = LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  return url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
}

/** A comma-separated list's entries, blanks dropped. */
export function listEntries(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/**
 * "NAME: entry 2 is …" or "NAME: entries 1 and 3 are …": where the bad entries of a list are,
 * never what they say (a list may be a secret's, and an echo is one more place a value lands).
 */
export function badEntriesProblem(
  name: string,
  positions: readonly number[],
  what: string,
): string {
  const last = positions.at(-1);
  const where =
    positions.length === 1
      ? `entry ${last} is`
      : `entries ${positions.slice(0, -1).join(', ')} and ${last} are`;
  return `${name}: ${where} ${what}`;
}

/** The 1-based positions of the entries `isBad` picks. */
export function positionsOf(
  entries: readonly string[],
  isBad: (entry: string) => boolean,
): number[] {
  return entries.flatMap((entry, index) => (isBad(entry) ? [index + 1] : []));
}

/** A list of IDs, `undefined` when unset; each entry `isValid` or named as `what` it is not. */
export const idList = (name: string, isValid: (id: string) => boolean, what: string) =>
  variable(
    name,
    z
      .string()
      .optional()
      .transform((value, ctx): ReadonlySet<string> | undefined => {
        if (value === undefined || value.trim() === '') return undefined;
        const ids = listEntries(value);
        const invalid = positionsOf(ids, (id) => !isValid(id));
        if (invalid.length > 0) {
          ctx.addIssue({ code: 'custom', message: badEntriesProblem(name, invalid, what) });
          return z.NEVER;
        }
        return new Set(ids);
      }),
  );
