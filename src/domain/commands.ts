import { clip, type Token, tokenize } from './command-text.ts';
import { isPositiveDecimalString } from './decimal.ts';
import {
  OPERATION_IDS,
  OPERATIONS,
  type OperationId,
  type OperationSpec,
  type QueryParamSpec,
} from './operations.ts';

/**
 * What a `/pay …` text asks for, decided from the operations catalogue alone. Pure: no I/O,
 * never throws; every mistake becomes an `invalid` command with a message naming it.
 */
export type Command =
  | { kind: 'help' }
  | {
      kind: 'read';
      operationId: OperationId;
      path: Record<string, string>;
      query: Record<string, string | boolean>;
    }
  /** `/pay balance` without a wallet: the balance of every wallet. */
  | { kind: 'all-balances' }
  | { kind: 'invalid'; message: string }
  | { kind: 'unknown'; word: string; suggestion: string | undefined };

const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
const CURRENCY = /^[A-Za-z]{3,6}$/;
const MAX_LIMIT = 1000;

/** `/pay balance` alone: every wallet's balance, so its wallet id is optional. */
const ALL_BALANCES_WORD = 'balance';

const READ_OPERATIONS = OPERATION_IDS.filter((id) => OPERATIONS[id].kind === 'read');

/** The `/pay` words of read commands, in catalogue order, with `help`. */
export const READ_COMMAND_WORDS: readonly string[] = [
  'help',
  ...new Set(READ_OPERATIONS.map((id) => OPERATIONS[id].command)),
];

export function parseCommand(text: string): Command {
  const tokens = tokenize(text);
  if ('error' in tokens) return { kind: 'invalid', message: tokens.error };
  const [first, ...rest] = tokens;
  if (first === undefined) return { kind: 'help' };
  if (first.kind !== 'word') {
    return { kind: 'invalid', message: 'Start with a command word, e.g. `/pay wallets`.' };
  }
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
      return invalid(`\`/pay ${word}\` takes no \`${clip(token.name)}=…\` fields. ${usage(word)}`);
    }
    const param = spec.query.find(
      (candidate) => candidate.name === token.name && !candidate.positional,
    );
    if (!param)
      return invalid(`\`/pay ${word}\` has no option \`--${clip(token.name)}\`. ${usage(word)}`);
    let value = token.value;
    if (param.type !== 'boolean' && value === undefined) {
      const next = tokens[index + 1];
      if (next?.kind !== 'word')
        return invalid(`\`--${param.name}\` needs a value. ${usage(word)}`);
      value = next.value;
      index++;
    }
    const parsed = parseValue(param, value);
    if (typeof parsed === 'object') return invalid(parsed.error);
    // `--sync=false` means the same as leaving it out; only send what changes the request.
    if (parsed !== false) query[param.name] = parsed;
  }

  if (words.length < slots.required) {
    const missing = slots.names.slice(words.length, slots.required).map((name) => `<${name}>`);
    return invalid(`\`/pay ${word}\` needs ${missing.join(' ')}. ${usage(word)}`);
  }
  if (words.length > slots.required + slots.optional) {
    return invalid(`\`/pay ${word}\` got too many words. ${usage(word)}`);
  }
  for (const [index, value] of words.entries()) {
    const name = slots.names[index] as string;
    if (spec.pathParams.includes(name)) {
      if (!IDENTIFIER.test(value)) {
        return invalid(`\`${clip(value)}\` is not a valid ${describeParam(name)}. ${usage(word)}`);
      }
      path[name] = value;
      continue;
    }
    const param = spec.query.find((candidate) => candidate.name === name) as QueryParamSpec;
    const parsed = parseValue(param, value);
    if (typeof parsed === 'object') return invalid(parsed.error);
    query[name] = parsed;
  }
  return { kind: 'read', operationId, path, query };
}

function parseValue(
  param: QueryParamSpec,
  value: string | undefined,
): string | boolean | { error: string } {
  switch (param.type) {
    case 'boolean':
      if (value === undefined || value === 'true') return true;
      if (value === 'false') return false;
      return { error: `\`--${param.name}\` takes no value (or true/false).` };
    case 'integer':
      if (
        value !== undefined &&
        /^\d+$/.test(value) &&
        Number(value) >= 1 &&
        Number(value) <= MAX_LIMIT
      ) {
        return value;
      }
      return { error: `\`--${param.name}\` must be a whole number from 1 to ${MAX_LIMIT}.` };
    case 'decimal':
      if (value !== undefined && isPositiveDecimalString(value)) return value;
      return {
        error: `\`${clip(value ?? '')}\` is not an amount: write a positive number like 100 or 1250.50 (no commas, no exponent).`,
      };
    case 'string':
      if (value !== undefined && CURRENCY.test(value)) return value.toUpperCase();
      return { error: `\`${clip(value ?? '')}\` is not a currency code like USD or USDC.` };
  }
}

/** `walletId` → `wallet id`. */
function describeParam(name: string): string {
  return name
    .replace(/Id$/, ' id')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

function invalid(message: string): Command {
  return { kind: 'invalid', message };
}

/** `/pay <word> …` as typed, from the catalogue: `/pay transfers [--limit <limit>] [--sync]`. */
export function usage(word: string): string {
  const forms = READ_OPERATIONS.filter((id) => OPERATIONS[id].command === word).map((id) => {
    const spec: OperationSpec = OPERATIONS[id];
    const parts = [`/pay ${word}`];
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
    return `\`${parts.join(' ')}\``;
  });
  return forms.length > 0 ? `Usage: ${forms.join(' or ')}` : '';
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
