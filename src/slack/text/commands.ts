import type { ApproverWord, HelpEntry } from '../../app/help.ts';
import { clip, type TextProblem } from '../../domain/command-text.ts';
import { type ReadCommandProblem, usageForms, type ValueProblem } from '../../domain/commands.ts';
import type { FreeTextTooLong } from '../../domain/free-text.ts';
import { OPERATIONS, type WriteOperationId } from '../../domain/operations.ts';
import {
  type FieldError,
  type WriteProblem,
  type WriteValueProblem,
  writeUsageForm,
} from '../../domain/write-commands.ts';
import { freeText } from '../blocks/format.ts';
import type { HelpEntry as HelpLine } from '../blocks/messages.ts';

/**
 * What payops says about a typed command: its mistakes and usage, each naming the command as it
 * is configured (`command`, e.g. `/pay`). Plain text with backtick-quoted forms; the message
 * that shows it escapes what Slack would read as markup.
 */

/** `Usage: \`/pay transfers [--limit <limit>] [--sync]\``, from the catalogue. */
export function readUsageText(command: string, word: string): string {
  const forms = usageForms(word).map((form) => `\`${command} ${form}\``);
  return forms.length > 0 ? `Usage: ${forms.join(' or ')}` : '';
}

/** `Usage: \`/pay update-recipient <externalAccountId> account_owner_name=…\` (or …)`. */
export function writeUsageText(command: string, operationId: WriteOperationId): string {
  const { head, fields } = writeUsageForm(operationId);
  const typed = `${command} ${head}`;
  if (fields === '') return `Usage: \`${typed}\``;
  return `Usage: \`${typed} ${fields}\` (or \`${typed}\` alone for a form)`;
}

export function textProblemText(problem: TextProblem): string {
  switch (problem.code) {
    case 'too_long':
      return `That command is ${problem.length} characters long; the limit is ${problem.max}.`;
    case 'control_characters':
      return 'The command contains control characters; please retype it.';
    case 'invalid_option':
      return `\`${clip(problem.option)}\` is not a valid option.`;
    case 'invalid_field_name':
      return `\`${clip(problem.name)}\` is not a valid field name (letters, digits and _ only).`;
    case 'unclosed_quote':
      return `A quote (${problem.quote}) is opened but never closed.`;
  }
}

/** A read command's mistake, with the usage of its word where that helps. */
export function readProblemText(command: string, problem: ReadCommandProblem): string {
  switch (problem.code) {
    case 'text':
      return textProblemText(problem.problem);
    case 'no_command_word':
      return `Start with a command word, e.g. \`${command} wallets\`.`;
    case 'fields_not_taken':
      return `\`${command} ${problem.word}\` takes no \`${clip(problem.field)}=…\` fields. ${readUsageText(command, problem.word)}`;
    case 'no_such_option':
      return `\`${command} ${problem.word}\` has no option \`--${clip(problem.option)}\`. ${readUsageText(command, problem.word)}`;
    case 'option_needs_value':
      return `\`--${problem.option}\` needs a value. ${readUsageText(command, problem.word)}`;
    case 'missing_arguments': {
      const missing = problem.missing.map((name) => `<${name}>`).join(' ');
      return `\`${command} ${problem.word}\` needs ${missing}. ${readUsageText(command, problem.word)}`;
    }
    case 'too_many_words':
      return `\`${command} ${problem.word}\` got too many words. ${readUsageText(command, problem.word)}`;
    case 'invalid_identifier':
      return `\`${clip(problem.value)}\` is not a valid ${describeParam(problem.param)}. ${readUsageText(command, problem.word)}`;
    case 'value':
      return readValueText(problem.problem);
  }
}

function readValueText(problem: ValueProblem): string {
  switch (problem.code) {
    case 'flag_takes_no_value':
      return `\`--${problem.option}\` takes no value (or true/false).`;
    case 'not_a_limit':
      return `\`--${problem.option}\` must be a whole number from 1 to ${problem.max}.`;
    case 'not_an_amount':
      return `\`${clip(problem.value)}\` is not an amount: write a positive number like 100 or 1250.50 (no commas, no exponent).`;
    case 'not_a_currency':
      return `\`${clip(problem.value)}\` is not a currency code like USD or USDC.`;
  }
}

/** `walletId` → `wallet id`. */
function describeParam(name: string): string {
  return name
    .replace(/Id$/, ' id')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

/** One mistake of a write command or form, starting with the field it names, if any. */
export function fieldErrorText(command: string, error: FieldError): string {
  return writeProblemText(command, error.problem);
}

function writeProblemText(command: string, problem: WriteProblem): string {
  switch (problem.code) {
    case 'text':
      return textProblemText(problem.problem);
    case 'no_write_word':
      return `Start with a write command: ${problem.words.map((word) => `\`${word}\``).join(', ')}.`;
    case 'extra_words': {
      const quoted = `\`${clip(problem.words.join(' '))}\``;
      const many = problem.words.length === 1 ? 'is one word' : 'are words';
      return `${quoted} ${many} too many for ${typed(command, problem.operationId)}. ${writeUsageText(command, problem.operationId)}`;
    }
    case 'options_not_taken':
      return `\`${clip(problem.flags.join(' '))}\`: write commands take no options — give fields as name=value. ${writeUsageText(command, problem.operationId)}`;
    case 'unquoted_value':
      return `${problem.name}: a value with spaces must be quoted — write ${problem.name}="…" with the whole value inside the quotes`;
    case 'repeated':
      return `${problem.name}: given more than once — give it once`;
    case 'path_not_taken':
      return `${problem.name}: ${typed(command, problem.operationId)} takes no ${problem.name}`;
    case 'path_missing':
      return `${problem.name}: missing — write \`${command} ${OPERATIONS[problem.operationId].command} <${problem.name}>\``;
    case 'fields_not_taken':
      return `${clip(problem.name)}: ${typed(command, problem.operationId)} takes no fields, only <${OPERATIONS[problem.operationId].pathParams.join('> <')}>`;
    case 'unknown_field': {
      const fields = OPERATIONS[problem.operationId].bodyFields.join(', ');
      const guess = problem.suggestion ? ` — did you mean ${problem.suggestion}?` : '.';
      return `${clip(problem.name)}: not a field of ${typed(command, problem.operationId)}${guess} Its fields are ${fields}.`;
    }
    case 'field_missing':
      return `${problem.name}: missing (every field is needed)`;
    case 'purpose_missing':
      return `purpose: missing — ${typed(command, problem.operationId)} needs a purpose: what the money is for, e.g. purpose="Invoice 2291". Approvers see it on the card; it is not sent to the provider`;
    case 'value':
      return `${problem.name}: ${valueProblemText(problem.problem)}`;
    case 'body_too_long':
      return `${problem.name}: the values together are ${problem.total} characters long; at most ${problem.max} — shorten this one (${problem.length})`;
  }
}

/** `` `/pay payout` ``. */
function typed(command: string, operationId: WriteOperationId): string {
  return `\`${command} ${OPERATIONS[operationId].command}\``;
}

/** What is wrong with one value, after its field's name. */
export function valueProblemText(problem: WriteValueProblem): string {
  switch (problem.code) {
    case 'empty':
      return 'empty — give a value';
    case 'too_long':
      return `${problem.length} characters long; at most ${problem.max}`;
    case 'invisible':
      return `contains an invisible character (${codePoint(problem.char)}: a line break, tab, text-direction mark or blank) — retype it`;
    case 'combining_mark':
      return `contains a combining mark (${codePoint(problem.char)}) that strikes through, stacks on or hides letters — type the accented letter itself`;
    case 'look_alike':
      return `contains \`${problem.char}\` (${codePoint(problem.char)}), a look-alike of \`${problem.plain}\` — type the ordinary character`;
    case 'mixed_scripts':
      return `mixes ${problem.scripts.join(' and ')} letters in \`${problem.word}\` (\`${problem.char}\` ${codePoint(problem.char)} is ${problem.script}) — a letter from another script makes one word pass for another; write each word in one script`;
    case 'special_space':
      return 'contains a special space (no-break, thin or wide) — type an ordinary space';
    case 'edge_space':
      return 'starts or ends with a space — remove it';
    case 'double_space':
      return 'has two spaces in a row — use one';
    case 'id_white_space':
      return `\`${clip(problem.value)}\` contains white space — an id is one word`;
    case 'id_slash':
      return `\`${clip(problem.value)}\` contains \`/\` — an id never does`;
    case 'not_an_id':
      return `\`${problem.value}\` is not an id`;
    case 'id_too_long':
      return `${problem.length} characters long; an id has at most ${problem.max}`;
    case 'not_ascii': {
      // A bank number is never echoed: grouped digits would slip past the masking of long numbers.
      const subject =
        problem.value === undefined ? 'contains' : `\`${clip(problem.value)}\` contains`;
      const what = problem.what === 'id' ? 'an id' : 'a bank or wallet number';
      return `${subject} \`${problem.char}\` (${codePoint(problem.char)}) — ${what} is written in plain ASCII letters, digits and signs; retype it`;
    }
    case 'amount_decimals':
      return `\`${clip(problem.value)}\` has ${problem.decimals} decimals; at most ${problem.max}`;
    case 'amount_digits':
      return `\`${clip(problem.value)}\` has ${problem.digits} digits before the decimal point; at most ${problem.max}`;
    case 'amount_zero':
      return `\`${clip(problem.value)}\` is zero — an amount must be more than zero`;
    case 'amount_negative':
      return `\`${clip(problem.value)}\` is negative — write a positive amount, no sign`;
    case 'amount_exponent':
      return `\`${clip(problem.value)}\` uses an exponent — write the digits out, e.g. 1000 for 1e3`;
    case 'amount_not_plain':
      return problem.plain !== undefined
        ? `\`${clip(problem.value)}\` is not a plain decimal amount — write ${problem.plain}`
        : `\`${clip(problem.value)}\` is not a plain decimal amount — write digits with at most one decimal point (no commas, spaces, signs or exponent), like 1250.50`;
    case 'not_a_currency':
      return `\`${clip(problem.value)}\` is not a currency code — write 3 to 6 letters, like USD or USDC`;
    case 'not_a_country':
      return `\`${clip(problem.value)}\` is not a two-letter country code — write e.g. US or DE`;
    case 'not_a_file_id':
      return `\`${clip(problem.value)}\` is not a Slack file id — give the id of a file shared in this channel (F and capitals and digits, as in the file's link: …/files/U…/F0123ABC/…)`;
  }
}

/** `U+0430`. */
function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

const APPROVER_COMMANDS: Record<ApproverWord, { args: string; summary: string }> = {
  requests: { args: '', summary: 'Pending requests' },
  request: { args: ' <n>', summary: 'One request with its history' },
  resolve: {
    args: ' <n> executed|not-executed <what you checked>',
    summary: 'Settle an unknown outcome after looking at the provider',
  },
  audit: { args: '', summary: 'The audit log as a CSV file' },
  freeze: { args: ' [reason]', summary: 'Stop every write to the provider (reads go on)' },
  unfreeze: { args: '', summary: 'Allow approvals to execute again' },
};

/** Help's lines: each command as typed under `command`, what it does, and why it cannot run. */
export function helpLines(command: string, entries: readonly HelpEntry[]): HelpLine[] {
  return entries.map((entry) => helpLine(command, entry));
}

function helpLine(command: string, entry: HelpEntry): HelpLine {
  switch (entry.kind) {
    case 'read': {
      const reason =
        entry.missing.length > 0
          ? `needs scope ${entry.missing.join(', ')}`
          : entry.syncMissing.length > 0
            ? `--sync needs scope ${entry.syncMissing.join(', ')}`
            : undefined;
      return {
        usage: readUsageText(command, entry.word).replace(/^Usage: /, ''),
        summary: entry.summaries.join('; '),
        available: entry.missing.length === 0,
        ...(reason ? { reason } : {}),
      };
    }
    case 'write':
      return {
        usage: writeUsageText(command, entry.operationId).replace(/^Usage: /, ''),
        summary: `${OPERATIONS[entry.operationId].summary} — needs approval`,
        available: entry.missing.length === 0,
        ...(entry.missing.length > 0 ? { reason: `needs scope ${entry.missing.join(', ')}` } : {}),
      };
    case 'approver': {
      const { args, summary } = APPROVER_COMMANDS[entry.word];
      return { usage: `\`${command} ${entry.word}${args}\``, summary, available: true };
    }
  }
}

/** `what`: the note, the reason… */
export function freeTextProblemText(what: string, problem: FreeTextTooLong): string {
  return `The ${what} is ${problem.length} characters long; at most ${problem.max}. Shorten it and try again.`;
}

/** What the kill switch did; `reason` is the freeze's, cleaned and maybe cut to `max`. */
export function freezeText(
  command: string,
  frozen: boolean,
  reason: { text: string; cut: boolean; max: number } | '',
): string {
  if (!frozen) return 'Payments are unfrozen. Pending requests can be approved again.';
  const shown = reason
    ? ` (${freeText(reason.text, reason.max)}${reason.cut ? `; cut to ${reason.max} characters` : ''})`
    : '';
  return `Payments are frozen${shown}: no write will be sent to the provider (reads go on). Pending requests stay pending; an approval that would execute is refused until \`${command} unfreeze\`.`;
}

/** A submitted form whose hidden data payops cannot read (altered, or from another version). */
export function formUnreadableText(command: string): string {
  return `payops could not read this form, so nothing was requested. Close it and type the command again (\`${command} help\` lists them).`;
}

export function sayWhichRequestText(command: string): string {
  return `Say which request: \`${command} request 12\`.`;
}

export function sayWhichResolveText(command: string): string {
  return `Say which request, what you found at the provider and what you checked: \`${command} resolve 12 executed payout po_123 is in the dashboard\` or \`${command} resolve 12 not-executed no payout to this recipient since the request\`.`;
}

/** An unknown outcome settled by an approver's word. */
export function resolvedText(id: number | string, executed: boolean): string {
  return executed
    ? `Request #${id} is recorded as executed, on your word. Its message and the audit log say so.`
    : `Request #${id} is recorded as not executed, on your word: the same write may be requested again. Its message and the audit log say so.`;
}

export function auditFileTitle(file: { part: number; firstId: number; lastId: number }): string {
  return `payops audit log, part ${file.part} (events ${file.firstId} to ${file.lastId})`;
}

export function auditAskedText(userId: string): string {
  return `<@${userId}> asked for the audit log.`;
}

/** Where the audit log went: `files` CSV files in the approvals channel. */
export function auditAttachedText(sent: {
  events: number;
  files: number;
  channelId: string;
}): string {
  const files = sent.files === 1 ? 'a CSV' : `${sent.files} CSV files, oldest first`;
  return `The audit log (${sent.events} events, the newest included) is attached as ${files} in <#${sent.channelId}>.`;
}
