import { type TextProblem, type Token, tokenize } from './command-text.ts';
import { isPositiveDecimalString } from './decimal.ts';
import {
  OPERATION_IDS,
  OPERATIONS,
  type OperationId,
  type OperationSpec,
  type QueryParamSpec,
} from './operations.ts';

/**
 * What a command's text asks for, decided from the operations catalogue alone. Pure: no I/O,
 * never throws; every mistake becomes an `invalid` command with the problem and its data, worded
 * on the Slack side (src/slack/text/commands.ts) with the configured command name.
 */
export type Command =
  | { kind: 'help' }
  | {
      kind: 'read';
      operationId: OperationId;
      path: Record<string, string>;
      query: Record<string, string | boolean>;
    }
  /** `balance` without a wallet: the balance of every wallet. */
  | { kind: 'all-balances' }
  | { kind: 'invalid'; problem: ReadCommandProblem }
  | { kind: 'unknown'; word: string; suggestion: string | undefined };

/**
 * What is wrong with a read command. `word` is the command word; those with `usage` are told
 * with the word's usage after them.
 */
export type ReadCommandProblem =
  | { code: 'text'; problem: TextProblem }
  | { code: 'no_command_word' }
  | { code: 'fields_not_taken'; word: string; field: string }
  | { code: 'no_such_option'; word: string; option: string }
  | { code: 'option_needs_value'; word: string; option: string }
  | { code: 'missing_arguments'; word: string; missing: string[] }
  | { code: 'too_many_words'; word: string }
  | { code: 'invalid_identifier'; word: string; value: string; param: string }
  | { code: 'value'; problem: ValueProblem };

/** A typed option's or argument's value that its parameter does not take. */
export type ValueProblem =
  | { code: 'flag_takes_no_value'; option: string }
  | { code: 'not_a_limit'; option: string; max: number }
  | { code: 'not_an_amount'; value: string }
  | { code: 'not_a_currency'; value: string };

const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const CURRENCY = /^[A-Za-z]{3,6}$/;
const MAX_LIMIT = 1000;

/** `balance` alone: every wallet's balance, so its wallet id is optional. */
const ALL_BALANCES_WORD = 'balance';

const READ_OPERATIONS = OPERATION_IDS.filter((id) => OPERATIONS[id].kind === 'read');

/** The words of read commands, in catalogue order, with `help`. */
export const READ_COMMAND_WORDS: readonly string[] = [
  'help',
  ...new Set(READ_OPERATIONS.map((id) => OPERATIONS[id].command)),
];

export function parseCommand(text: string): Command {
  const tokens = tokenize(text);
  if ('error' in tokens) return invalid({ code: 'text', problem: tokens.error });
  const [first, ...rest] = tokens;
  if (first === undefined) return { kind: 'help' };
  if (first.kind !== 'word') return invalid({ code: 'no_command_word' });
  const word = first.value.toLowerCase();
  if (word === 'help') return { kind: 'help' };
  const candidates = READ_OPERATIONS.filter((id) => OPERATIONS[id].command === word);
  if (candidates.length === 0)
    return { kind: 'unknown', word: first.value, suggestion: closest(word) };
  if (word === ALL_BALANCES_WORD && rest.length === 0) return { kind: 'all-balances' };

  const positional = rest.filter((token) => token.kind === 'word').length;
  // Several operations may share a word (`fx` and `fx EUR USD`): the arguments choose.
  const chosen =
    candidates.find((id) => acceptsPositional(OPERATIONS[id], positional)) ?? candidates[0];
  return parseArguments(chosen as OperationId, word, rest);
}

function positionalSlots(spec: OperationSpec): {
  required: number;
  optional: number;
  names: string[];
} {
  const queryPositional = spec.query.filter((param) => param.positional !== undefined);
  return {
    required:
      spec.pathParams.length +
      queryPositional.filter((param) => param.positional === 'required').length,
    optional: queryPositional.filter((param) => param.positional === 'optional').length,
    names: [...spec.pathParams, ...queryPositional.map((param) => param.name)],
  };
}

function acceptsPositional(spec: OperationSpec, count: number): boolean {
  const slots = positionalSlots(spec);
  return count >= slots.required && count <= slots.required + slots.optional;
}

function parseArguments(operationId: OperationId, word: string, tokens: Token[]): Command {
  const spec: OperationSpec = OPERATIONS[operationId];
  const slots = positionalSlots(spec);
  const path: Record<string, string> = {};
  const query: Record<string, string | boolean> = {};
  const words: string[] = [];

  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index] as Token;
    if (token.kind === 'word') {
      words.push(token.value);
      continue;
    }
    if (token.kind === 'field') {
      return invalid({ code: 'fields_not_taken', word, field: token.name });
    }
    const param = spec.query.find(
      (candidate) => candidate.name === token.name && !candidate.positional,
    );
    if (!param) return invalid({ code: 'no_such_option', word, option: token.name });
    let value = token.value;
    if (param.type !== 'boolean' && value === undefined) {
      const next = tokens[index + 1];
      if (next?.kind !== 'word')
        return invalid({ code: 'option_needs_value', word, option: param.name });
      value = next.value;
      index++;
    }
    const parsed = parseValue(param, value);
    if (typeof parsed === 'object') return invalid({ code: 'value', problem: parsed.error });
    // `--sync=false` means the same as leaving it out; only send what changes the request.
    if (parsed !== false) query[param.name] = parsed;
  }

  if (words.length < slots.required) {
    const missing = slots.names.slice(words.length, slots.required);
    return invalid({ code: 'missing_arguments', word, missing });
  }
  if (words.length > slots.required + slots.optional) {
    return invalid({ code: 'too_many_words', word });
  }
  for (const [index, value] of words.entries()) {
    const name = slots.names[index] as string;
    if (spec.pathParams.includes(name)) {
      if (!IDENTIFIER.test(value)) {
        return invalid({ code: 'invalid_identifier', word, value, param: name });
      }
      path[name] = value;
      continue;
    }
    const param = spec.query.find((candidate) => candidate.name === name) as QueryParamSpec;
    const parsed = parseValue(param, value);
    if (typeof parsed === 'object') return invalid({ code: 'value', problem: parsed.error });
    query[name] = parsed;
  }
  return { kind: 'read', operationId, path, query };
}

function parseValue(
  param: QueryParamSpec,
  value: string | undefined,
): string | boolean | { error: ValueProblem } {
  switch (param.type) {
    case 'boolean':
      if (value === undefined || value === 'true') return true;
      if (value === 'false') return false;
      return { error: { code: 'flag_takes_no_value', option: param.name } };
    case 'integer':
      if (
        value !== undefined &&
        /^\d+$/.test(value) &&
        Number(value) >= 1 &&
        Number(value) <= MAX_LIMIT
      ) {
        return value;
      }
      return { error: { code: 'not_a_limit', option: param.name, max: MAX_LIMIT } };
    case 'decimal':
      if (value !== undefined && isPositiveDecimalString(value)) return value;
      return { error: { code: 'not_an_amount', value: value ?? '' } };
    case 'string':
      if (value !== undefined && CURRENCY.test(value)) return value.toUpperCase();
      return { error: { code: 'not_a_currency', value: value ?? '' } };
  }
}

function invalid(problem: ReadCommandProblem): Command {
  return { kind: 'invalid', problem };
}

/**
 * The argument forms of a read word, one per operation it names, from the catalogue:
 * `transfers` → [`transfers [--limit <limit>] [--sync]`]. The Slack side puts the command name
 * before each.
 */
export function usageForms(word: string): string[] {
  return READ_OPERATIONS.filter((id) => OPERATIONS[id].command === word).map((id) => {
    const spec: OperationSpec = OPERATIONS[id];
    const parts = [word];
    for (const name of spec.pathParams)
      parts.push(word === ALL_BALANCES_WORD ? `[${name}]` : `<${name}>`);
    for (const param of spec.query) {
      if (param.positional === 'required') parts.push(`<${param.name}>`);
      else if (param.positional === 'optional') parts.push(`[${param.name}]`);
      else
        parts.push(
          param.type === 'boolean' ? `[--${param.name}]` : `[--${param.name} <${param.name}>]`,
        );
    }
    return parts.join(' ');
  });
}

/**
 * The candidate nearest to `word` by edit distance, if it is near enough to be a typo.
 * Candidates are lower case; by default the read command words.
 */
export function closest(
  word: string,
  candidates: readonly string[] = READ_COMMAND_WORDS,
): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase().slice(0, 64), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= Math.max(2, Math.floor(word.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}
