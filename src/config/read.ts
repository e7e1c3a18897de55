import { readFileSync } from 'node:fs';
import { ZodObject, type z } from 'zod';
import {
  badEntriesProblem,
  listEntries,
  positionsOf,
  type Variable,
  variableOf,
} from './fields.ts';

/**
 * Reading a configuration, written once for every command: each variable of each section is
 * parsed on its own, each check between variables runs once those it needs have parsed, and
 * every problem is reported at once. Messages never quote a value, so no secret can leak through
 * them. Each secret may instead be read from a file named by `<NAME>_FILE` (Docker and
 * Kubernetes secrets).
 */

export type Env = Readonly<Record<string, string | undefined>>;

/** Groups of the configuration (`payments`, `slack`…): each an object of fields or one field. */
export type Groups = Readonly<Record<string, z.ZodType>>;

/**
 * A section: its groups, each field read from one variable (a group may nest objects), and the
 * checks between its variables. Two sections may fill one group.
 */
export interface Section<G extends Groups = Groups> {
  groups: G;
  checks: readonly Check[];
}

export function section<G extends Groups>(
  groups: G,
  { checks = [] }: { checks?: readonly Check[] } = {},
): Section<G> {
  return { groups, checks };
}

/** What a section gives: its groups, typed by their schemas. */
export type Parts<S extends Section> = {
  readonly [G in keyof S['groups']]: Readonly<z.output<S['groups'][G]>>;
};

/** Problems between variables, asked once each variable it `needs` has parsed. */
export interface Check {
  needs: readonly string[];
  problems(value: (name: string) => unknown): readonly string[];
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

interface Field {
  /** Where its value goes: `['payments', 'baseUrl']`. */
  path: readonly string[];
  schema: z.ZodType;
  variable: Variable;
}

/** Each field of `sections`, in order, with the variable it reads. */
export function fieldsOf(sections: readonly Section[]): Field[] {
  const fields = (path: readonly string[], schema: z.ZodType): Field[] =>
    schema instanceof ZodObject
      ? Object.entries(schema.shape).flatMap(([key, field]) =>
          fields([...path, key], field as z.ZodType),
        )
      : [{ path, schema, variable: variableOf(schema) }];
  return sections.flatMap(({ groups }) =>
    Object.entries(groups).flatMap(([group, schema]) => fields([group], schema)),
  );
}

/**
 * The configuration `sections` read from `env`, their groups merged and frozen; a `ConfigError`
 * listing every problem of every section and check.
 */
export function readSections<T>(
  env: Env,
  sections: readonly Section[],
  checks: readonly Check[] = [],
): T {
  const fields = fieldsOf(sections);
  const { resolved, problems, failed } = readSecretFiles(
    env,
    fields.filter((field) => field.variable.secret).map((field) => field.variable.name),
  );
  for (const { variable } of fields) {
    const value = resolved[variable.name];
    if (value === undefined || failed.has(variable.name)) continue;
    const problem = placeholderProblem(variable, value);
    if (problem === undefined) continue;
    problems.push(problem);
    failed.add(variable.name);
  }
  const values = new Map<string, unknown>();
  for (const { schema, variable } of fields) {
    if (failed.has(variable.name)) continue;
    const result = schema.safeParse(resolved[variable.name]);
    if (result.success) values.set(variable.name, result.data);
    else problems.push(...problemsOf(result.error, variable.name));
  }
  for (const check of [...sections.flatMap((section) => section.checks), ...checks]) {
    if (!check.needs.every((name) => values.has(name))) continue;
    problems.push(...check.problems((name) => values.get(name)));
  }
  if (problems.length > 0) throw new ConfigError(problems);
  const config: Record<string, unknown> = {};
  const made = [config];
  for (const { path, variable } of fields) {
    let target = config;
    for (const key of path.slice(0, -1)) {
      if (target[key] === undefined) {
        target[key] = {};
        made.push(target[key] as Record<string, unknown>);
      }
      target = target[key] as Record<string, unknown>;
    }
    target[path.at(-1) as string] = values.get(variable.name);
  }
  // The objects made here; a value's own (a Buffer cannot be) is its section's to freeze.
  for (const object of made) Object.freeze(object);
  return config as T;
}

/** Each issue in plain words; ours already name the variable, zod's generic ones do not. */
function problemsOf(error: z.ZodError, name: string): string[] {
  return error.issues.map((issue) =>
    issue.message.includes(name) ? issue.message : `${name}: ${issue.message}`,
  );
}

/**
 * Reads each secret given as `<NAME>_FILE`, less one trailing newline (what `echo` and most
 * editors leave). A problem names the variable and the path, never the file's content. `failed`:
 * variables already refused, whose parsing would only echo the problem.
 */
function readSecretFiles(env: Env, names: readonly string[]) {
  const resolved: Record<string, string | undefined> = { ...env };
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
  return { resolved, problems, failed };
}

/**
 * What .env.example ships where a real value goes: a value saying `replace` (as a word of its
 * own: `cus_replace`, `replace-with-…`, not `replacement`), and its example Slack IDs. A
 * placeholder signing key is known to anyone who read the example; an example ID names no one.
 * Said instead of what the variable's schema would say: a format slip would hide that it is
 * public. The test of .env.example checks that each of its placeholders is recognised here.
 */
const PLACEHOLDER_WORD = /(^|[^a-z])replace([^a-z]|$)/i;
const EXAMPLE_SLACK_ID = /^[UWSCGD](0123ABCD|0456EFGH)$/;

function placeholderProblem(variable: Variable, value: string): string | undefined {
  if (PLACEHOLDER_WORD.test(value) || EXAMPLE_SLACK_ID.test(value.trim())) {
    return `${variable.name} is the placeholder of .env.example: ${variable.placeholderAdvice}`;
  }
  const examples = positionsOf(listEntries(value), (entry) => EXAMPLE_SLACK_ID.test(entry));
  if (examples.length === 0) return undefined;
  return badEntriesProblem(
    variable.name,
    examples,
    'from .env.example, whose IDs are placeholders: put the real IDs instead',
  );
}
