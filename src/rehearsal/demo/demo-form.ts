import { tokenize } from '../../domain/command-text.ts';
import { textProblemText } from '../../slack/text/commands.ts';
import { isObject, type JsonObject } from '../sandbox/slack.ts';

/**
 * A modal's inputs as the demo console fills them in: each input block is a field named by its
 * action_id, and what the person typed becomes `view.state.values` shaped exactly as Slack sends
 * it for that kind of element.
 */

export interface FormOption {
  readonly value: string;
  readonly label: string;
  /** The option object itself: Slack sends the chosen one back whole. */
  readonly json: JsonObject;
}

export interface FormField {
  /** What the person types before `=`. */
  readonly name: string;
  readonly blockId: string;
  readonly actionId: string;
  readonly type: string;
  readonly label: string;
  readonly optional: boolean;
  /** For selects, radio buttons and checkboxes. */
  readonly options: readonly FormOption[] | undefined;
  /** Several values at once: multi-selects and checkboxes. */
  readonly multiple: boolean;
  /** What the element starts with (initial_value, initial_option…). */
  readonly initial: readonly string[];
}

/** Field name → the values chosen or typed (one for most elements). */
export type FormValues = Map<string, readonly string[]>;

const MULTIPLE = new Set([
  'checkboxes',
  'multi_static_select',
  'multi_external_select',
  'multi_users_select',
  'multi_conversations_select',
  'multi_channels_select',
]);

/** Elements whose state names one id, and the key Slack sends it under. */
const SELECTED_ID: Readonly<Record<string, string>> = {
  datepicker: 'selected_date',
  timepicker: 'selected_time',
  users_select: 'selected_user',
  conversations_select: 'selected_conversation',
  channels_select: 'selected_channel',
  multi_users_select: 'selected_users',
  multi_conversations_select: 'selected_conversations',
  multi_channels_select: 'selected_channels',
};

const textOf = (value: unknown): string =>
  isObject(value) && typeof value.text === 'string' ? value.text : '';

/** The fields of a view: one per input block with an interactive element. */
export function formFields(view: JsonObject | undefined): FormField[] {
  const blocks = Array.isArray(view?.blocks) ? view.blocks.filter(isObject) : [];
  const inputs = blocks.flatMap((block) => {
    const element = block.element;
    if (block.type !== 'input' || !isObject(element)) return [];
    if (typeof element.action_id !== 'string' || typeof element.type !== 'string') return [];
    return [{ block, element, actionId: element.action_id, type: element.type }];
  });
  const taken = (actionId: string) => inputs.filter((input) => input.actionId === actionId).length;
  return inputs.map(({ block, element, actionId, type }) => {
    const blockId = typeof block.block_id === 'string' ? block.block_id : actionId;
    const options = Array.isArray(element.options)
      ? element.options.filter(isObject).map((json) => ({
          value: typeof json.value === 'string' ? json.value : '',
          label: textOf(json.text),
          json,
        }))
      : undefined;
    return {
      name: taken(actionId) > 1 ? blockId : actionId,
      blockId,
      actionId,
      type,
      label: textOf(block.label) || actionId,
      optional: block.optional === true,
      options,
      multiple: MULTIPLE.has(type),
      initial: initialValues(element),
    };
  });
}

function initialValues(element: JsonObject): string[] {
  const chosen = [
    element.initial_option,
    ...(Array.isArray(element.initial_options) ? element.initial_options : []),
  ].flatMap((option) =>
    isObject(option) && typeof option.value === 'string' ? [option.value] : [],
  );
  if (chosen.length > 0) return chosen;
  const single = [
    element.initial_value,
    element.initial_date,
    element.initial_time,
    element.initial_user,
    element.initial_conversation,
    element.initial_channel,
  ].find((value) => typeof value === 'string' && value !== '');
  if (typeof single === 'string') return [single];
  const many = [element.initial_users, element.initial_conversations, element.initial_channels]
    .filter(Array.isArray)
    .flat();
  return many.filter((value): value is string => typeof value === 'string');
}

/** The values a form starts with. */
export function initialFormValues(fields: readonly FormField[]): FormValues {
  return new Map(fields.map((field) => [field.name, field.initial]));
}

/**
 * What one typed answer means for a field: for a choice, an option's value, its label (or the
 * start of only one label) or its number in the list, comma-separated for several; for anything
 * else, the text as typed.
 */
export function readAnswer(field: FormField, typed: string): readonly string[] | { error: string } {
  const text = typed.trim();
  if (text === '') return [];
  if (field.options === undefined) {
    if (field.multiple) return text.split(',').map((part) => part.trim());
    return [field.type === 'plain_text_input' ? typed : text];
  }
  const options = field.options;
  const parts = field.multiple ? text.split(',').map((part) => part.trim()) : [text];
  const chosen: string[] = [];
  for (const part of parts) {
    const lower = part.toLowerCase();
    const starting = options.filter((candidate) => candidate.label.toLowerCase().startsWith(lower));
    const option =
      options.find((candidate) => candidate.value === part) ??
      options.find((candidate) => candidate.label.toLowerCase() === lower) ??
      (/^\d+$/.test(part) ? options[Number(part) - 1] : undefined) ??
      (starting.length === 1 ? starting[0] : undefined);
    if (option === undefined) {
      return {
        error: `"${part}" is not one of ${field.name}'s choices: ${options.map((o, i) => `${i + 1}) ${o.label}`).join(', ')}.`,
      };
    }
    chosen.push(option.value);
  }
  return chosen;
}

/**
 * `name=value …` as typed on one line: values may be quoted, and unquoted words after a value
 * carry on with it (`reason=Wrong account number`).
 */
export function readAssignments(
  fields: readonly FormField[],
  line: string,
): Array<[string, readonly string[]]> | { error: string } {
  const tokens = tokenize(line);
  if ('error' in tokens) return { error: textProblemText(tokens.error) };
  const typed: Array<[FormField, string]> = [];
  for (const token of tokens) {
    const last = typed.at(-1);
    if (token.kind === 'field') {
      const field = fields.find((candidate) => candidate.name === token.name);
      if (field === undefined) {
        return {
          error: `This form has no field ${token.name}. Its fields: ${fields.map((f) => f.name).join(', ')}.`,
        };
      }
      typed.push([field, token.value]);
    } else if (last !== undefined) {
      const word =
        token.kind === 'word'
          ? token.value
          : `--${token.name}${token.value === undefined ? '' : `=${token.value}`}`;
      last[1] = `${last[1]} ${word}`;
    } else {
      return { error: `Type each field as name=value, e.g. ${fields[0]?.name ?? 'field'}=…` };
    }
  }
  const assignments: Array<[string, readonly string[]]> = [];
  for (const [field, text] of typed) {
    const answer = readAnswer(field, text);
    if ('error' in answer) return answer;
    assignments.push([field.name, answer]);
  }
  return assignments;
}

/** The required fields left empty: Slack's client refuses to send the form until they are filled. */
export function missingFields(fields: readonly FormField[], values: FormValues): FormField[] {
  return fields.filter((field) => !field.optional && (values.get(field.name) ?? []).length === 0);
}

/** `view.state.values` as Slack sends it: block_id → action_id → the element's state. */
export function stateValues(fields: readonly FormField[], values: FormValues): JsonObject {
  const state: Record<string, Record<string, JsonObject>> = {};
  for (const field of fields) {
    const block = state[field.blockId] ?? {};
    block[field.actionId] = elementState(field, values.get(field.name) ?? []);
    state[field.blockId] = block;
  }
  return state;
}

function elementState(field: FormField, values: readonly string[]): JsonObject {
  const { type } = field;
  const first = values[0] ?? null;
  if (field.options !== undefined) {
    const chosen = values.flatMap((value) => {
      const option = field.options?.find((candidate) => candidate.value === value);
      return option === undefined ? [] : [option.json];
    });
    return field.multiple
      ? { type, selected_options: chosen }
      : { type, selected_option: chosen[0] ?? null };
  }
  const key = SELECTED_ID[type];
  if (key !== undefined) return { type, [key]: field.multiple ? [...values] : first };
  if (type === 'datetimepicker') {
    const millis = first === null ? Number.NaN : Date.parse(first);
    return { type, selected_date_time: Number.isNaN(millis) ? null : Math.floor(millis / 1000) };
  }
  // A file input's files, named by the ids typed (the file shared first with `upload`).
  if (type === 'file_input') return { type, files: values.map((id) => ({ id })) };
  if (type === 'rich_text_input') {
    return {
      type,
      rich_text_value: {
        type: 'rich_text',
        elements: [
          {
            type: 'rich_text_section',
            elements: first === null ? [] : [{ type: 'text', text: first }],
          },
        ],
      },
    };
  }
  // plain_text_input, number, email and url inputs; and any element this console does not know.
  return { type, value: first };
}

/** The view with what was typed as its initial values, so it renders as filled in. */
export function filledView(
  view: JsonObject,
  fields: readonly FormField[],
  values: FormValues,
): JsonObject {
  const byAction = new Map(fields.map((field) => [`${field.blockId}\n${field.actionId}`, field]));
  const blocks = (Array.isArray(view.blocks) ? view.blocks : []).map((block) => {
    if (!isObject(block) || !isObject(block.element)) return block;
    const blockId = typeof block.block_id === 'string' ? block.block_id : block.element.action_id;
    const field = byAction.get(`${blockId}\n${block.element.action_id}`);
    if (field === undefined) return block;
    const chosen = values.get(field.name) ?? [];
    const element = { ...block.element };
    for (const key of ['initial_value', 'initial_option', 'initial_options']) delete element[key];
    if (field.options !== undefined) {
      const options = field.options
        .filter((option) => chosen.includes(option.value))
        .map((option) => option.json);
      if (field.multiple) element.initial_options = options;
      else if (options[0] !== undefined) element.initial_option = options[0];
    } else if (chosen.length > 0) {
      element.initial_value = chosen.join(', ');
    }
    return { ...block, element };
  });
  return { ...view, blocks };
}
