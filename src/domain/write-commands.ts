import type { WriteIntent } from './approval.ts';
import { type TextProblem, type Token, tokenize } from './command-text.ts';
import { closest } from './commands.ts';
import { isDecimalString, isPositiveDecimalString } from './decimal.ts';
import { DOCUMENT_FIELD, isSlackFileId } from './document.ts';
import { sensitiveKind } from './masking.ts';
import { isWrite, OPERATION_IDS, OPERATIONS, type WriteOperationId } from './operations.ts';
import { MAX_PURPOSE_LENGTH, PURPOSE_FIELD, takesPurpose } from './purpose.ts';
import { scrub } from './scrub.ts';

/**
 * Write commands (`payout amount=10.00 …`, `deactivate-recipient ea_123`) turned into a
 * `WriteIntent`, from the operations catalogue alone. Pure and never throws: every problem
 * becomes a `FieldError` naming its field, all of them at once, so a modal can show each one
 * next to its input; the Slack side words them (src/slack/text/commands.ts).
 *
 * The spec shows neither types nor allowed values (part 2), so the checks are about form only
 * and values are sent exactly as typed: never trimmed, re-cased or re-formatted. A money-moving
 * write's `purpose` is payops's own (src/domain/purpose.ts): taken out of the fields, never sent.
 */

/** `field` is the body field or path parameter at fault; undefined for the command as a whole. */
export interface FieldError {
  field: string | undefined;
  problem: WriteProblem;
}

/** What is wrong with a write command or one of its values. */
export type WriteProblem =
  | { code: 'text'; problem: TextProblem }
  | { code: 'no_write_word'; words: readonly string[] }
  | { code: 'extra_words'; operationId: WriteOperationId; words: string[] }
  | { code: 'options_not_taken'; operationId: WriteOperationId; flags: string[] }
  | { code: 'unquoted_value'; name: string }
  | { code: 'repeated'; name: string }
  | { code: 'path_not_taken'; operationId: WriteOperationId; name: string }
  | { code: 'path_missing'; operationId: WriteOperationId; name: string }
  | { code: 'fields_not_taken'; operationId: WriteOperationId; name: string }
  | {
      code: 'unknown_field';
      operationId: WriteOperationId;
      name: string;
      suggestion: string | undefined;
    }
  | { code: 'field_missing'; name: string }
  /** `WriteRules.requirePurpose` lists the write and no purpose was given. */
  | { code: 'purpose_missing'; operationId: WriteOperationId }
  | { code: 'value'; name: string; problem: WriteValueProblem }
  | { code: 'body_too_long'; name: string; total: number; max: number; length: number };

/** Why a value could deceive an approver who reads it on the approval message. */
export type DeceptionProblem =
  | { code: 'invisible'; char: string }
  | { code: 'combining_mark'; char: string }
  | { code: 'look_alike'; char: string; plain: string }
  | { code: 'mixed_scripts'; scripts: string[]; word: string; char: string; script: string };

/** What is wrong with one value. */
export type WriteValueProblem =
  | { code: 'empty' }
  | { code: 'too_long'; length: number; max: number }
  | DeceptionProblem
  | { code: 'special_space' }
  | { code: 'edge_space' }
  | { code: 'double_space' }
  | { code: 'id_white_space'; value: string }
  | { code: 'id_slash'; value: string }
  | { code: 'not_an_id'; value: string }
  | { code: 'id_too_long'; length: number; max: number }
  /** `value` undefined: a bank or wallet number, never echoed. */
  | { code: 'not_ascii'; value: string | undefined; char: string; what: 'id' | 'number' }
  | { code: 'amount_decimals'; value: string; decimals: number; max: number }
  | { code: 'amount_digits'; value: string; digits: number; max: number }
  | { code: 'amount_zero'; value: string }
  | { code: 'amount_negative'; value: string }
  | { code: 'amount_exponent'; value: string }
  /** `plain` is the same amount written plainly, when its meaning is unambiguous. */
  | { code: 'amount_not_plain'; value: string; plain: string | undefined }
  | { code: 'not_a_currency'; value: string }
  | { code: 'not_a_country'; value: string }
  /** A supporting document is named by its Slack file id (src/domain/document.ts). */
  | { code: 'not_a_file_id'; value: string };

/** What the deployment asks of every write besides its fields (`PAYOPS_REQUIRE_PURPOSE`). */
export interface WriteRules {
  /** The writes refused without a purpose; the other money-moving writes take one if given. */
  requirePurpose: ReadonlySet<WriteOperationId>;
}

const NO_RULES: WriteRules = { requirePurpose: new Set() };

export type WriteParse =
  | { kind: 'intent'; intent: WriteIntent }
  /** No fields typed for an operation that has some: the Slack side opens a form. */
  | {
      kind: 'modal';
      operationId: WriteOperationId;
      path: Record<string, string>;
      /** A purpose typed without the fields, for the form to start with. */
      purpose?: string;
    }
  | { kind: 'invalid'; errors: FieldError[] };

/** Longer values are typing accidents, not names or addresses. */
export const MAX_VALUE_LENGTH = 500;
/** Every value of one request together: far more than any write of the spec needs. */
export const MAX_BODY_LENGTH = 1_500;
export const MAX_IDENTIFIER_LENGTH = 128;
/** Wei-denominated tokens have 18 decimals; nothing needs more. */
export const MAX_AMOUNT_DECIMALS = 18;
/** A quadrillion less one: more whole digits are a typing accident (and too long to show). */
export const MAX_AMOUNT_WHOLE_DIGITS = 15;

const CURRENCY_FIELDS: ReadonlySet<string> = new Set([
  'currency',
  'source_currency',
  'destination_currency',
]);

const WRITE_OPERATIONS: readonly WriteOperationId[] = OPERATION_IDS.filter(isWrite);

/** The words of write commands, in catalogue order. */
export const WRITE_COMMAND_WORDS: readonly string[] = WRITE_OPERATIONS.map(
  (id) => OPERATIONS[id].command,
);

export function isWriteCommandWord(word: string): boolean {
  return WRITE_COMMAND_WORDS.includes(word.toLowerCase());
}

function operationForWord(word: string): WriteOperationId | undefined {
  return WRITE_OPERATIONS.find((id) => OPERATIONS[id].command === word.toLowerCase());
}

/**
 * A write's forms, from the catalogue, for the Slack side to put the command name before:
 * `update-recipient <externalAccountId>` and its fields `account_owner_name=…` (none for a write
 * without a body, which has no form either).
 */
export function writeUsageForm(operationId: WriteOperationId): { head: string; fields: string } {
  const spec = OPERATIONS[operationId];
  const purpose = takesPurpose(operationId) ? [`${PURPOSE_FIELD}="…"`] : [];
  return {
    head: [spec.command, ...spec.pathParams.map((name) => `<${name}>`)].join(' '),
    fields: [...spec.bodyFields.map((name) => `${name}=…`), ...purpose].join(' '),
  };
}

/** Parses the text after the command name whose first word is a write command word. */
export function parseWriteCommand(text: string, rules: WriteRules = NO_RULES): WriteParse {
  const tokens = tokenize(text);
  if ('error' in tokens) {
    return invalid([{ field: undefined, problem: { code: 'text', problem: tokens.error } }]);
  }
  const [first, ...rest] = tokens;
  const operationId = first?.kind === 'word' ? operationForWord(first.value) : undefined;
  if (operationId === undefined) {
    return invalid([
      { field: undefined, problem: { code: 'no_write_word', words: WRITE_COMMAND_WORDS } },
    ]);
  }
  const { path, fields, errors } = collectArguments(operationId, rest);
  const spec = OPERATIONS[operationId];
  // No fields at all means "give me the form"; reporting each missing field would be noise.
  // A purpose alone (`payout purpose="…"`) asks for the form too, which starts with it.
  const { value: purpose, fields: body } = ownField(operationId, fields, PURPOSE_FIELD);
  if (Object.keys(body).length === 0 && spec.bodyFields.length > 0) {
    const all = [
      ...errors,
      ...pathErrors(operationId, path),
      ...(purpose === undefined ? [] : purposeErrors(operationId, purpose, rules)),
    ];
    if (all.length > 0) return invalid(all);
    return { kind: 'modal', operationId, path, ...(purpose !== undefined && { purpose }) };
  }
  const validated = validateWriteFields(operationId, path, fields, rules);
  if ('errors' in validated) return invalid([...errors, ...validated.errors]);
  return errors.length > 0 ? invalid(errors) : { kind: 'intent', intent: validated.intent };
}

/**
 * Checks a write's path and fields, from a typed command or a modal submission. An undefined
 * value counts as not given (an empty modal input). On success the intent's fields are in
 * catalogue order, so its JSON text and fingerprint do not depend on the order of typing; its
 * purpose, if any, is scrubbed as a rejection reason is: it is stored and shown, never sent.
 */
export function validateWriteFields(
  operationId: WriteOperationId,
  path: Readonly<Record<string, string | undefined>>,
  given: Readonly<Record<string, string | undefined>>,
  rules: WriteRules = NO_RULES,
): { intent: WriteIntent } | { errors: FieldError[] } {
  const spec = OPERATIONS[operationId];
  const { value: purpose, fields: withDocument } = ownField(operationId, given, PURPOSE_FIELD);
  const { value: documentFileId, fields } = ownField(operationId, withDocument, DOCUMENT_FIELD);
  const errors = [...pathErrors(operationId, path), ...documentErrors(documentFileId)];
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined && !spec.bodyFields.includes(name)) {
      errors.push(unknownField(operationId, name));
    }
  }
  for (const name of spec.bodyFields) {
    const value = fields[name];
    if (value === undefined) {
      errors.push({ field: name, problem: { code: 'field_missing', name } });
      continue;
    }
    const problem = valueProblem(name, value, false);
    if (problem !== undefined)
      errors.push({ field: name, problem: { code: 'value', name, problem } });
  }
  if (errors.length === 0) errors.push(...bodyLengthErrors(spec.bodyFields, fields));
  errors.push(...purposeErrors(operationId, purpose, rules));
  if (errors.length > 0) return { errors };
  return {
    intent: {
      operationId,
      path: Object.fromEntries(spec.pathParams.map((name) => [name, path[name] as string])),
      fields: Object.fromEntries(spec.bodyFields.map((name) => [name, fields[name] as string])),
      ...(purpose !== undefined && { purpose: scrub(purpose) }),
      ...(documentFileId !== undefined && { documentFileId }),
    },
  };
}

function documentErrors(fileId: string | undefined): FieldError[] {
  if (fileId === undefined || isSlackFileId(fileId)) return [];
  const problem = { code: 'not_a_file_id' as const, value: fileId };
  return [{ field: DOCUMENT_FIELD, problem: { code: 'value', name: DOCUMENT_FIELD, problem } }];
}

/**
 * One of payops's own fields of a money-moving write (its purpose, its supporting document's
 * file id) apart from the body fields; other writes have no such field.
 */
function ownField(
  operationId: WriteOperationId,
  given: Readonly<Record<string, string | undefined>>,
  name: string,
): { value: string | undefined; fields: Readonly<Record<string, string | undefined>> } {
  if (!takesPurpose(operationId) || !Object.hasOwn(given, name)) {
    return { value: undefined, fields: given };
  }
  const { [name]: value, ...fields } = given;
  return { value, fields };
}

function purposeErrors(
  operationId: WriteOperationId,
  purpose: string | undefined,
  rules: WriteRules,
): FieldError[] {
  if (purpose === undefined) {
    return rules.requirePurpose.has(operationId)
      ? [{ field: PURPOSE_FIELD, problem: { code: 'purpose_missing', operationId } }]
      : [];
  }
  const problem =
    purpose.length > MAX_PURPOSE_LENGTH
      ? { code: 'too_long' as const, length: purpose.length, max: MAX_PURPOSE_LENGTH }
      : valueProblem(PURPOSE_FIELD, purpose, false);
  return problem === undefined
    ? []
    : [{ field: PURPOSE_FIELD, problem: { code: 'value', name: PURPOSE_FIELD, problem } }];
}

/**
 * All values together: the approval message must show every one whole (Slack allows about
 * 12,000 characters of text in a message, and a value's `&` becomes `&amp;`).
 */
function bodyLengthErrors(
  bodyFields: readonly string[],
  fields: Readonly<Record<string, string | undefined>>,
): FieldError[] {
  const lengths = bodyFields.map((name) => ({ name, length: fields[name]?.length ?? 0 }));
  const total = lengths.reduce((sum, field) => sum + field.length, 0);
  if (total <= MAX_BODY_LENGTH) return [];
  const longest = lengths.reduce((a, b) => (b.length > a.length ? b : a));
  return [
    {
      field: longest.name,
      problem: {
        code: 'body_too_long',
        name: longest.name,
        total,
        max: MAX_BODY_LENGTH,
        length: longest.length,
      },
    },
  ];
}

/**
 * Bare words fill the path parameters in order and must come first, so a word left over from an
 * unquoted value (`beneficiary_name=Jane Roe`) can never become an id.
 */
function collectArguments(
  operationId: WriteOperationId,
  tokens: Token[],
): { path: Record<string, string>; fields: Record<string, string>; errors: FieldError[] } {
  const spec = OPERATIONS[operationId];
  const words: string[] = [];
  const fields = new Map<string, string>();
  const repeated = new Set<string>();
  /** Fields followed by a stray word: most likely a value with spaces typed without quotes. */
  const unquoted = new Set<string>();
  const errors: FieldError[] = [];
  const flags: string[] = [];
  const extraWords: string[] = [];
  let lastField: string | undefined;
  for (const token of tokens) {
    if (token.kind === 'field') {
      if (fields.has(token.name)) repeated.add(token.name);
      else fields.set(token.name, token.value);
      lastField = token.name;
    } else if (token.kind === 'flag') {
      flags.push(`--${token.name}`);
    } else if (lastField !== undefined) {
      unquoted.add(lastField);
    } else if (words.length < spec.pathParams.length) {
      words.push(token.value);
    } else {
      extraWords.push(token.value);
    }
  }
  // One line for all stray words and one for all options, each with the usage once.
  if (extraWords.length > 0) {
    errors.push({
      field: undefined,
      problem: { code: 'extra_words', operationId, words: extraWords },
    });
  }
  if (flags.length > 0) {
    errors.push({ field: undefined, problem: { code: 'options_not_taken', operationId, flags } });
  }
  for (const name of unquoted) {
    errors.push({ field: name, problem: { code: 'unquoted_value', name } });
  }
  for (const name of repeated) {
    errors.push({ field: name, problem: { code: 'repeated', name } });
  }
  const path = Object.fromEntries(
    words.map((word, index) => [spec.pathParams[index] as string, word]),
  );
  // Object.fromEntries makes own properties, so a field named `__proto__` stays a plain field.
  return { path, fields: Object.fromEntries(fields), errors };
}

function pathErrors(
  operationId: WriteOperationId,
  path: Readonly<Record<string, string | undefined>>,
): FieldError[] {
  const spec = OPERATIONS[operationId];
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(path)) {
    if (value !== undefined && !spec.pathParams.includes(name)) {
      errors.push({ field: name, problem: { code: 'path_not_taken', operationId, name } });
    }
  }
  for (const name of spec.pathParams) {
    const value = path[name];
    if (value === undefined) {
      errors.push({ field: name, problem: { code: 'path_missing', operationId, name } });
      continue;
    }
    const problem = valueProblem(name, value, true);
    if (problem !== undefined)
      errors.push({ field: name, problem: { code: 'value', name, problem } });
  }
  return errors;
}

function unknownField(operationId: WriteOperationId, name: string): FieldError {
  const spec = OPERATIONS[operationId];
  if (spec.bodyFields.length === 0) {
    return { field: name, problem: { code: 'fields_not_taken', operationId, name } };
  }
  const suggestion = closest(name, spec.bodyFields);
  return { field: name, problem: { code: 'unknown_field', operationId, name, suggestion } };
}

// Characters that make two values look alike, or make the approval message show other text
// than what is sent: C0/C1 controls, line separators, zero-width characters and joiners, the
// soft hyphen, fillers and blanks (Hangul, Braille, Khmer), variation selectors, tag characters,
// BOM, bidi marks, the object and replacement characters, private-use, unassigned and lone
// surrogate code points.
const INVISIBLE =
  /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Cs}\p{Variation_Selector}\u115f\u1160\u17b4\u17b5\u2028\u2029\u2800\u3164\uffa0\ufffc\ufffd]|\u034f/u;

/**
 * Generic combining marks (accents, overlays, strokes) left over once the text is composed
 * (NFC): an accented letter of Latin, Greek or Cyrillic composes to one character, so what is
 * left strikes, stacks on or hides letters. Marks of Arabic, Indic and other scripts are
 * their own blocks and stay allowed.
 */
const STRAY_MARK = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/u;
/** A combining mark with no letter to sit on: at the start, after a space, digit or sign. */
const MARK_WITHOUT_LETTER = /(?:^|[^\p{L}\p{M}])\p{M}/u;

/** Scripts named in messages, tried in this order; a letter of any other is "another script". */
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Georgian',
  'Cherokee',
  'Hebrew',
  'Arabic',
  'Devanagari',
  'Bengali',
  'Tamil',
  'Thai',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Bopomofo',
] as const;
const SCRIPT_TESTS = SCRIPTS.map((name) => ({
  name,
  test: new RegExp(`^\\p{Script=${name}}$`, 'u'),
}));
const OTHER_SCRIPT = 'another script';

/**
 * Scripts that are written together (Unicode TR 39's "highly restrictive" level): Japanese
 * mixes Han, Hiragana and Katakana, Korean Han and Hangul, Chinese Han and Bopomofo, each with
 * Latin. Any other mix (Latin with Cyrillic or Greek…) is how a look-alike is built.
 */
const SCRIPTS_WRITTEN_TOGETHER: readonly ReadonlySet<string>[] = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Hangul']),
  new Set(['Latin', 'Han', 'Bopomofo']),
];

/** The scripts of the letters in `text`, in order of appearance; digits and signs have none. */
export function scriptsOf(text: string): string[] {
  return [...firstLetterOfEachScript(text).keys()];
}

/** Each script of `text`'s letters, with its first letter there. */
function firstLetterOfEachScript(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const char of text) {
    if (!/\p{L}/u.test(char)) continue;
    const script = SCRIPT_TESTS.find((each) => each.test.test(char))?.name ?? OTHER_SCRIPT;
    if (!found.has(script)) found.set(script, char);
  }
  return found;
}

/**
 * Why a value could deceive an approver who reads it on the approval message, or undefined:
 * invisible characters, stray combining marks, styled or full-width look-alikes of plain
 * letters and digits, and a word with letters of scripts not written together. A value in
 * another script than Latin (a name in Cyrillic or Chinese), or with words in several
 * (`Ελένη Smith`, see `mixedScripts`), is accepted.
 */
export function deceptionProblem(value: string): DeceptionProblem | undefined {
  const invisible = INVISIBLE.exec(value)?.[0];
  if (invisible !== undefined) return { code: 'invisible', char: invisible };
  const composed = value.normalize('NFC');
  const mark = STRAY_MARK.exec(composed)?.[0] ?? MARK_WITHOUT_LETTER.exec(composed)?.[0].slice(-1);
  if (mark !== undefined) return { code: 'combining_mark', char: mark };
  for (const char of value) {
    const plain = char.normalize('NFKC');
    if (char > '\u007f' && /^[A-Za-z0-9]+$/.test(plain)) return { code: 'look_alike', char, plain };
  }
  for (const word of value.match(WORD) ?? []) {
    const letters = firstLetterOfEachScript(word);
    const scripts = [...letters.keys()];
    if (writtenTogether(scripts)) continue;
    const [, second = ''] = scripts;
    return {
      code: 'mixed_scripts',
      scripts,
      word,
      char: letters.get(second) ?? '',
      script: second,
    };
  }
  return undefined;
}

/** Letters and their marks: a word, whose letters are of one script unless written together. */
const WORD = /[\p{L}\p{M}]+/gu;

function writtenTogether(scripts: readonly string[]): boolean {
  return (
    scripts.length < 2 ||
    SCRIPTS_WRITTEN_TOGETHER.some((set) => scripts.every((name) => set.has(name)))
  );
}

/**
 * The scripts of a value whose words are in scripts not written together (`Ελένη Smith`:
 * Greek, Latin), or undefined. Honest names mix scripts word by word, so such a value is
 * accepted, and the card names its scripts for the approver to look for a look-alike word.
 */
export function mixedScripts(value: string): string[] | undefined {
  const scripts = scriptsOf(value);
  return writtenTogether(scripts) ? undefined : scripts;
}

/** Spaces that look like an ordinary one but are not (no-break, thin, ideographic…). */
const SPECIAL_SPACE = /[\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/;

/** What is wrong with one value, or undefined. Identifiers are the `*_id` fields and path ids. */
function valueProblem(
  name: string,
  value: string,
  isPathParam: boolean,
): WriteValueProblem | undefined {
  if (value.trim() === '') return { code: 'empty' };
  if (value.length > MAX_VALUE_LENGTH) {
    return { code: 'too_long', length: value.length, max: MAX_VALUE_LENGTH };
  }
  const deceptive = deceptionProblem(value);
  if (deceptive !== undefined) return deceptive;
  if (isPathParam || name.endsWith('_id')) return identifierProblem(value);
  if (sensitiveKind(name) === 'banking') {
    return asciiProblem(value, 'number') ?? spacingProblem(value);
  }
  if (name === 'amount') return amountProblem(value);
  if (CURRENCY_FIELDS.has(name)) return currencyProblem(value);
  if (name === 'country') return countryProblem(value);
  return spacingProblem(value);
}

/**
 * The approval message shows text on one line with single spaces: a value it would show
 * otherwise than it is sent is refused, so what is approved is exactly what is sent.
 */
function spacingProblem(value: string): WriteValueProblem | undefined {
  if (SPECIAL_SPACE.test(value)) return { code: 'special_space' };
  if (value !== value.trim()) return { code: 'edge_space' };
  if (value.includes('  ')) return { code: 'double_space' };
  return undefined;
}

function identifierProblem(value: string): WriteValueProblem | undefined {
  if (/\s/u.test(value)) return { code: 'id_white_space', value };
  if (value.includes('/')) return { code: 'id_slash', value };
  // `..` would climb out of its place in the request path.
  if (value === '.' || value === '..') return { code: 'not_an_id', value };
  if (value.length > MAX_IDENTIFIER_LENGTH) {
    return { code: 'id_too_long', length: value.length, max: MAX_IDENTIFIER_LENGTH };
  }
  return asciiProblem(value, 'id');
}

/**
 * Ids and bank or wallet numbers are made by machines from ASCII: any other character in one
 * (a Cyrillic `а`, a full-width digit) only makes it pass for another. A bank number is never
 * echoed: grouped digits (`1234 5678 …`) would slip past the masking of long numbers.
 */
function asciiProblem(value: string, what: 'id' | 'number'): WriteValueProblem | undefined {
  const other = /[^\x20-\x7e]/u.exec(value)?.[0];
  if (other === undefined) return undefined;
  return { code: 'not_ascii', value: what === 'id' ? value : undefined, char: other, what };
}

function amountProblem(value: string): WriteValueProblem | undefined {
  const [whole = '', fraction = ''] = value.split('.');
  if (isPositiveDecimalString(value)) {
    if (fraction.length > MAX_AMOUNT_DECIMALS) {
      return {
        code: 'amount_decimals',
        value,
        decimals: fraction.length,
        max: MAX_AMOUNT_DECIMALS,
      };
    }
    return whole.length > MAX_AMOUNT_WHOLE_DIGITS
      ? { code: 'amount_digits', value, digits: whole.length, max: MAX_AMOUNT_WHOLE_DIGITS }
      : undefined;
  }
  if (isDecimalString(value)) return { code: 'amount_zero', value };
  if (value.startsWith('-')) return { code: 'amount_negative', value };
  if (/^[+-]?[\d.]+e[+-]?\d+$/i.test(value)) return { code: 'amount_exponent', value };
  return { code: 'amount_not_plain', value, plain: plainAmount(value) };
}

/** The plain form of an amount whose meaning is unambiguous (`1,000`, `+5`, `007.5`, `.5`). */
function plainAmount(value: string): string | undefined {
  let plain = value.replace(/^\+/, '');
  if (/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(plain)) plain = plain.replaceAll(',', '');
  plain = plain
    .replace(/^\./, '0.')
    .replace(/\.$/, '')
    .replace(/^0+(?=\d)/, '');
  return plain !== value && isPositiveDecimalString(plain) ? plain : undefined;
}

function currencyProblem(value: string): WriteValueProblem | undefined {
  return /^[A-Za-z]{3,6}$/.test(value) ? undefined : { code: 'not_a_currency', value };
}

function countryProblem(value: string): WriteValueProblem | undefined {
  return /^[A-Za-z]{2}$/.test(value) ? undefined : { code: 'not_a_country', value };
}

function invalid(errors: FieldError[]): WriteParse {
  return { kind: 'invalid', errors };
}
