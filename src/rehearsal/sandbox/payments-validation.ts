/**
 * Checks of query strings and request bodies against the operations catalogue. The catalogue says
 * which parameters and body fields exist; the rules for their values are the sandbox's choice,
 * because the spec shows neither types nor allowed values (part 2 and part 4, rule 5).
 */
import { isPositiveDecimalString } from '../../domain/decimal.ts';
import {
  OPERATIONS,
  type OperationId,
  type OperationSpec,
  type QueryParamSpec,
  type WriteOperationId,
} from '../../domain/operations.ts';
import {
  CHAINS,
  FIAT_CURRENCIES,
  FIAT_RAILS,
  isOneOf,
  WALLET_CURRENCIES,
} from './payments-data.ts';
import { SandboxError, unprocessable } from './payments-errors.ts';

/** A validated body: only catalogue fields, every value a string. */
export type Fields = Readonly<Record<string, string>>;

/** Sandbox's choice for `GET /transfers?limit` (spec part 8 shows only the example 50). */
export const TRANSFERS_LIMIT = { min: 1, max: 100, default: 50 } as const;

const INTEGER_RANGES: Readonly<Record<string, { min: number; max: number }>> = {
  limit: TRANSFERS_LIMIT,
};

const KNOWN_CURRENCIES: readonly string[] = [...WALLET_CURRENCIES, ...FIAT_CURRENCIES];
const MAX_TEXT_LENGTH = 200;
/** Stablecoins carry six decimals; finer amounts cannot be settled. */
const MAX_AMOUNT_DECIMALS = 6;

/** Sandbox's choice: these may be left out (not every bank has a routing number, nor every
 * address a state). Every other catalogue field of a write is required. */
const OPTIONAL_FIELDS: ReadonlySet<string> = new Set([
  'routing_number',
  'beneficiary_routing',
  'street_line_1',
  'city',
  'state',
  'postal_code',
]);

/** An update whose resource has more fields than it may change: those answer FIELD_NOT_UPDATABLE. */
const UPDATES_OF: Partial<Record<WriteOperationId, WriteOperationId>> = {
  updateRecipient: 'createRecipient',
};

type FieldRule = (value: string, field: string) => void;

const FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  amount: checkAmount,
  currency: checkCurrency,
  source_currency: checkCurrency,
  destination_currency: checkCurrency,
  chain: allowedValues(CHAINS, 'UNSUPPORTED_CHAIN'),
  destination_payment_rail: allowedValues(CHAINS, 'UNSUPPORTED_PAYMENT_RAIL'),
  destination_type: allowedValues(FIAT_RAILS, 'UNSUPPORTED_PAYMENT_RAIL'),
  country: (value, field) => {
    if (!/^[A-Z]{2}$/.test(value)) {
      throw unprocessable('INVALID_FIELD', `${field} must be an ISO 3166 two-letter country code`);
    }
  },
};

function checkAmount(value: string, field: string): void {
  const decimals = value.split('.')[1]?.length ?? 0;
  if (!isPositiveDecimalString(value) || decimals > MAX_AMOUNT_DECIMALS) {
    throw unprocessable(
      'INVALID_AMOUNT',
      `${field} must be a positive decimal string with at most ${MAX_AMOUNT_DECIMALS} decimals, such as "125.00"`,
    );
  }
}

function checkCurrency(value: string, field: string): void {
  if (!KNOWN_CURRENCIES.includes(value)) {
    throw unprocessable(
      'UNSUPPORTED_CURRENCY',
      `${field} ${value} is not supported; supported: ${KNOWN_CURRENCIES.join(', ')}`,
    );
  }
}

function allowedValues(values: readonly string[], code: string): FieldRule {
  return (value, field) => {
    if (!isOneOf(values, value)) {
      throw unprocessable(
        code,
        `${field} ${value} is not supported; supported: ${values.join(', ')}`,
      );
    }
  };
}

/** The body of a write: a JSON object with only catalogue fields, all strings, all plausible. */
export function parseBody(id: WriteOperationId, raw: string): Fields {
  const spec: OperationSpec = OPERATIONS[id];
  const object = parseJsonObject(raw, spec.bodyFields.length === 0);
  for (const name of Object.keys(object)) {
    if (!spec.bodyFields.includes(name)) throw refuseField(id, name);
  }
  const fields: Record<string, string> = {};
  for (const name of spec.bodyFields) {
    const value = object[name];
    if (value === undefined || value === null) {
      if (OPTIONAL_FIELDS.has(name)) continue;
      throw unprocessable('MISSING_FIELD', `${name} is required`);
    }
    fields[name] = checkedValue(name, value);
  }
  return fields;
}

function parseJsonObject(raw: string, emptyAllowed: boolean): Record<string, unknown> {
  if (raw.trim() === '') {
    if (emptyAllowed) return {};
    throw new SandboxError(400, 'INVALID_BODY', 'The request body must be a JSON object');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new SandboxError(400, 'INVALID_JSON', 'The request body is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new SandboxError(400, 'INVALID_BODY', 'The request body must be a JSON object');
  }
  return parsed as Record<string, unknown>;
}

function refuseField(id: WriteOperationId, name: string): SandboxError {
  const resourceOperation = UPDATES_OF[id];
  const resourceFields: readonly string[] = resourceOperation
    ? OPERATIONS[resourceOperation].bodyFields
    : [];
  if (resourceFields.includes(name)) {
    return unprocessable('FIELD_NOT_UPDATABLE', `${name} cannot be changed by this operation`);
  }
  return unprocessable('UNKNOWN_FIELD', `${name} is not a field of this operation`);
}

function checkedValue(name: string, value: unknown): string {
  if (typeof value !== 'string') {
    if (name === 'amount' && typeof value === 'number') {
      throw unprocessable(
        'INVALID_AMOUNT',
        'amount must be a decimal string such as "125.00", not a JSON number',
      );
    }
    throw unprocessable('INVALID_FIELD', `${name} must be a string`);
  }
  if (value.trim() === '' || value.length > MAX_TEXT_LENGTH) {
    throw unprocessable('INVALID_FIELD', `${name} must be 1 to ${MAX_TEXT_LENGTH} characters`);
  }
  FIELD_RULES[name]?.(value, name);
  return value;
}

/**
 * The query of a request: only the operation's catalogue parameters, each once, each well formed,
 * and on a read the paging parameter of the list view, when lists page.
 */
export function parseQuery(
  id: OperationId,
  search: URLSearchParams,
  pagingParameter?: string,
): Map<string, string> {
  const specs: readonly QueryParamSpec[] = OPERATIONS[id].query;
  const query = new Map<string, string>();
  for (const [name, value] of search) {
    const spec = specs.find((param) => param.name === name);
    const paging = name === pagingParameter && OPERATIONS[id].kind === 'read';
    if (!spec && !paging) throw refuseQueryParameter(name);
    if (query.has(name)) {
      throw new SandboxError(400, 'DUPLICATE_QUERY_PARAMETER', `${name} is given more than once`);
    }
    if (spec) checkQueryValue(spec, value);
    query.set(name, value);
  }
  return query;
}

function refuseQueryParameter(name: string): SandboxError {
  const message = /api[-_]?key/i.test(name)
    ? 'API keys are accepted only in the X-Api-Key header, never in the URL'
    : `${name} is not a query parameter of this operation`;
  return new SandboxError(400, 'UNKNOWN_QUERY_PARAMETER', message);
}

function checkQueryValue(spec: QueryParamSpec, value: string): void {
  const invalid = (rule: string) =>
    new SandboxError(400, 'INVALID_QUERY_PARAMETER', `${spec.name} must be ${rule}`);
  switch (spec.type) {
    case 'boolean':
      if (value !== 'true' && value !== 'false') throw invalid('true or false');
      return;
    case 'integer': {
      const range = INTEGER_RANGES[spec.name];
      const rule = range ? `an integer from ${range.min} to ${range.max}` : 'an integer';
      if (!/^\d{1,9}$/.test(value)) throw invalid(rule);
      if (range && (Number(value) < range.min || Number(value) > range.max)) throw invalid(rule);
      return;
    }
    case 'decimal':
      if (!isPositiveDecimalString(value)) throw invalid('a positive decimal such as 100.00');
      return;
    case 'string':
      if (value === '') throw invalid('non-empty');
      return;
  }
}

/**
 * Query names that count toward scopes: a boolean flag asks for its extra scopes only when set,
 * as `sync=true` needs resources:write but `sync=false` is an ordinary read.
 */
export function scopeBearingQueryNames(
  id: OperationId,
  query: ReadonlyMap<string, string>,
): string[] {
  const specs: readonly QueryParamSpec[] = OPERATIONS[id].query;
  return [...query]
    .filter(
      ([name, value]) =>
        specs.find((param) => param.name === name)?.type !== 'boolean' || value === 'true',
    )
    .map(([name]) => name);
}
