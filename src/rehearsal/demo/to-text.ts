import type {
  ActionsBlock,
  Button,
  ContextBlock,
  HeaderBlock,
  ImageBlock,
  InputBlock,
  ModalView,
  Option,
  SectionBlock,
  TextObject,
} from '@slack/types';
import { type Clock, dateTokenToText, emojiToText, isoTimesToText } from './local-text.ts';

/**
 * Block Kit as a terminal can show it, for the demo console: what a newcomer reads there is what
 * Slack would show, minus the pixels. The input is JSON the bot sent, trusted for nothing: a
 * missing or malformed field renders as nothing, never as `undefined` or `[object Object]`.
 * Buttons get a short reference so a console can offer to "click" them; emoji and times are
 * drawn as Slack would draw them for a reader here.
 */

/** Names for the ids inside mentions; an id it does not know is shown as the id. */
export interface NameDirectory {
  userName(userId: string): string | undefined;
  channelName(channelId: string): string | undefined;
  groupHandle(groupId: string): string | undefined;
}

/** How emphasis looks: ANSI attributes on a terminal, nothing at all in plain text. */
export interface TextStyle {
  bold(text: string): string;
  italic(text: string): string;
  code(text: string): string;
  dim(text: string): string;
}

const unchanged = (text: string): string => text;

export const PLAIN_STYLE: TextStyle = {
  bold: unchanged,
  italic: unchanged,
  code: unchanged,
  dim: unchanged,
};

export const ANSI_STYLE: TextStyle = {
  bold: (text) => `\x1b[1m${text}\x1b[22m`,
  italic: (text) => `\x1b[3m${text}\x1b[23m`,
  code: (text) => `\x1b[36m${text}\x1b[39m`,
  dim: (text) => `\x1b[2m${text}\x1b[22m`,
};

export interface RenderOptions {
  readonly directory?: NameDirectory;
  readonly style?: TextStyle;
  /** Names each button as listed; by default they are numbered 1, 2, 3… in order. */
  readonly buttonRef?: (button: Omit<ShownButton, 'ref'>) => string;
  /** The name an input is filled in by (`reason=…`), shown beside its label when it differs. */
  readonly inputName?: (input: { blockId: string | undefined; actionId: string }) => string;
  /** The reader's "now" and time zone, for dates. */
  readonly clock?: Clock;
}

/** A button as listed (`[1] Approve`): what a click on it must send back. */
export interface ShownButton {
  readonly ref: string;
  readonly label: string;
  readonly actionId: string;
  readonly blockId: string | undefined;
  readonly value: string | undefined;
}

export interface TextRendering {
  readonly lines: string[];
  readonly buttons: ShownButton[];
}

const DIVIDER = '─'.repeat(40);

/** A message as Slack shows it: its blocks, or its `text` when it has none. */
export function messageToText(
  message: { readonly text?: unknown; readonly blocks?: unknown },
  options: RenderOptions = {},
): TextRendering {
  const renderer = new Renderer(options);
  if (Array.isArray(message.blocks) && message.blocks.length > 0) {
    for (const block of message.blocks) renderer.block(block);
  } else if (typeof message.text === 'string') {
    renderer.mrkdwn(message.text);
  }
  return renderer.result();
}

export function blocksToText(
  blocks: readonly unknown[],
  options: RenderOptions = {},
): TextRendering {
  return messageToText({ blocks }, options);
}

/** A modal or Home tab: its title, its blocks (inputs as a field list) and its submit/close. */
export function viewToText(view: unknown, options: RenderOptions = {}): TextRendering {
  const renderer = new Renderer(options);
  if (!isObject(view)) return renderer.result();
  const { title, blocks, submit, close } = view as Partial<ModalView>;
  const heading = textOf(title, renderer);
  if (heading) renderer.heading(heading);
  if (Array.isArray(blocks)) for (const block of blocks) renderer.block(block);
  const footer = [
    textOf(submit, renderer) && `Submit: ${textOf(submit, renderer)}`,
    textOf(close, renderer) && `Close: ${textOf(close, renderer)}`,
  ].filter(Boolean);
  if (footer.length > 0) renderer.push(renderer.style.dim(footer.join('  ·  ')));
  return renderer.result();
}

/**
 * Slack mrkdwn made readable: `*bold*`, `_italic_` and `code` lose their markers (and are styled),
 * `<#C…>`/`<@U…>`/`<!subteam^S…>` become #name/@name/@handle, `<url|label>` becomes `label (url)`,
 * dates (tokens and ISO times) read in local time, `:emoji:` become the characters, and Slack's
 * three escapes are undone.
 */
export function mrkdwnToText(text: string, options: RenderOptions = {}): string {
  const style = options.style ?? PLAIN_STYLE;
  // Code and link targets are set aside first, so emphasis inside them is left alone.
  const kept: string[] = [];
  const keep = (value: string): string => `\uE000${kept.push(value) - 1}\uE001`;
  const marked = text
    .replace(/```\n?([\s\S]*?)\n?```/g, (_, code: string) => keep(style.code(code)))
    .replace(/`([^`\n]+)`/g, (_, code: string) => keep(style.code(code)))
    .replace(/<([^<>\n]+)>/g, (_, inner: string) => keep(resolveEntity(inner, options)))
    .replace(emphasis('*'), (_, before: string, inner: string) => before + style.bold(inner))
    .replace(emphasis('_'), (_, before: string, inner: string) => before + style.italic(inner));
  return drawn(marked, options.clock)
    .replace(/\uE000(\d+)\uE001/g, (_, index: string) => kept[Number(index)] ?? '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** `*x*` or `_x_` as Slack reads them: the markers hug the text and stand apart from words. */
function emphasis(marker: '*' | '_'): RegExp {
  const m = `\\${marker}`;
  return new RegExp(`(^|[^\\w${m}])${m}(?=\\S)([^${m}\\n]*?[^${m}\\s])${m}(?![\\w${m}])`, 'gm');
}

/** Emoji and ISO times as a reader here sees them. */
function drawn(text: string, clock: Clock | undefined, emoji = true): string {
  return isoTimesToText(emoji ? emojiToText(text) : text, clock);
}

function resolveEntity(inner: string, { directory, clock }: RenderOptions): string {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  // A label is Slack's fallback text; mentions may carry their sigil in it.
  const label = bar === -1 ? undefined : inner.slice(bar + 1).replace(/^[@#]/, '');
  if (target.startsWith('#')) {
    const id = target.slice(1);
    return `#${directory?.channelName(id) ?? label ?? id}`;
  }
  if (target.startsWith('@')) {
    const id = target.slice(1);
    return `@${directory?.userName(id) ?? label ?? id}`;
  }
  if (target.startsWith('!subteam^')) {
    const id = target.slice('!subteam^'.length);
    return `@${directory?.groupHandle(id) ?? label ?? id}`;
  }
  if (target.startsWith('!date^')) return dateTokenToText(inner, clock);
  if (target.startsWith('!')) return `@${target.slice(1)}`;
  return label && label !== target ? `${label} (${target})` : target;
}

type ElementJson = Partial<{
  type: string;
  action_id: string;
  text: TextObject;
  placeholder: TextObject;
  initial_value: string;
  initial_date: string;
  initial_time: string;
  options: Option[];
  initial_option: Option;
  initial_options: Option[];
  alt_text: string;
}>;

const TEXT_INPUTS = new Set([
  'plain_text_input',
  'number_input',
  'email_text_input',
  'url_text_input',
  'rich_text_input',
]);

class Renderer {
  readonly style: TextStyle;
  readonly format: (text: string) => string;
  /** plain_text as drawn: times, and emoji unless it says `emoji: false`; no markup. */
  readonly plain: (text: string, emoji: boolean) => string;
  private readonly lines: string[] = [];
  private readonly buttons: ShownButton[] = [];
  private readonly buttonRef: NonNullable<RenderOptions['buttonRef']>;
  private readonly inputName: RenderOptions['inputName'];

  constructor(options: RenderOptions) {
    this.style = options.style ?? PLAIN_STYLE;
    this.format = (text) => mrkdwnToText(text, options);
    this.plain = (text, emoji) => drawn(text, options.clock, emoji);
    let count = 0;
    this.buttonRef = options.buttonRef ?? (() => String(++count));
    this.inputName = options.inputName;
  }

  result(): TextRendering {
    return { lines: this.lines, buttons: this.buttons };
  }

  push(...lines: string[]): void {
    this.lines.push(...lines);
  }

  mrkdwn(text: string, indent = ''): void {
    for (const line of this.format(text).split('\n')) this.push(indent + line);
  }

  heading(text: string): void {
    this.push(this.style.bold(text), '='.repeat(text.length));
  }

  block(value: unknown): void {
    if (!isObject(value) || typeof value.type !== 'string') return;
    switch (value.type) {
      case 'header':
        this.header(value as Partial<HeaderBlock>);
        break;
      case 'section':
        this.section(value as Partial<SectionBlock>);
        break;
      case 'context':
        this.context(value as Partial<ContextBlock>);
        break;
      case 'divider':
        this.push(DIVIDER);
        break;
      case 'actions':
        this.actions(value as Partial<ActionsBlock>);
        break;
      case 'input':
        this.input(value as Partial<InputBlock>);
        break;
      case 'image':
        this.push(imageLabel((value as Partial<ImageBlock>).alt_text));
        break;
      default:
        this.other(value.type, value.text);
    }
  }

  private header(block: Partial<HeaderBlock>): void {
    const text = textOf(block.text, this);
    if (text) this.heading(text);
  }

  private section(block: Partial<SectionBlock>): void {
    const text = textOf(block.text, this);
    if (text) this.push(...text.split('\n'));
    const fields: unknown[] = Array.isArray(block.fields) ? block.fields : [];
    for (let index = 0; index < fields.length; index++) {
      // A field holding only a bold name, beside its value (a fact table row): `Name: value`.
      const name = boldName(fields[index], this.format);
      const line =
        name !== undefined && index + 1 < fields.length
          ? `${name}: ${this.field(fields[++index])}`
          : this.field(fields[index]);
      if (line) this.push(`  ${line}`);
    }
    const accessory = this.element(block.accessory, block.block_id);
    if (accessory) this.push(`  ${accessory}`);
  }

  /** A field is often `*Label*\nvalue`: shown on one line as `Label: value`. */
  private field(field: unknown): string {
    const text = textOf(field, this);
    const [first = '', ...rest] = text.split('\n');
    if (rest.length === 0) return first;
    const labelled =
      isObject(field) &&
      field.type === 'mrkdwn' &&
      typeof field.text === 'string' &&
      /^\*[^*\n]+\*\n/.test(field.text);
    return labelled
      ? `${first}${first.endsWith(':') ? '' : ':'} ${rest.join(' ')}`
      : [first, ...rest].join(' ');
  }

  private context(block: Partial<ContextBlock>): void {
    // Images in a context line are icons: their alt text would only be noise.
    const texts = (Array.isArray(block.elements) ? block.elements : [])
      .map((element) =>
        isObject(element) && element.type !== 'image' ? textOf(element, this) : '',
      )
      .filter(Boolean);
    if (texts.length > 0) this.push(...texts.join('  ').split('\n').map(this.style.dim));
  }

  private actions(block: Partial<ActionsBlock>): void {
    const elements = (Array.isArray(block.elements) ? block.elements : [])
      .map((element) => this.element(element, block.block_id))
      .filter(Boolean);
    if (elements.length > 0) this.push(elements.join('  '));
  }

  /** An input as one entry of a field list: `• Amount: ____ (e.g. 12.50)` and its hint. */
  private input(block: Partial<InputBlock>): void {
    const label = textOf(block.label, this) || 'Input';
    const optional = block.optional ? ' (optional)' : '';
    const actionId = isObject(block.element) ? block.element.action_id : undefined;
    const name =
      typeof actionId === 'string' ? this.inputName?.({ blockId: block.block_id, actionId }) : '';
    const named = name && !label.includes(name) ? ` (${name})` : '';
    this.push(`• ${label}${named}${optional}: ${this.describe(block.element)}`);
    const hint = textOf(block.hint, this);
    if (hint) this.push(`  ${this.style.dim(hint)}`);
  }

  /** A block this renderer does not know: its text if it has one, else its type. */
  private other(type: string, text: unknown): void {
    const readable = typeof text === 'string' ? this.format(text) : textOf(text, this);
    this.push(...(readable ? readable.split('\n') : [this.style.dim(`[${type} block]`)]));
  }

  /** An interactive element shown inline: a numbered button, or what the element asks for. */
  private element(value: unknown, blockId: string | undefined): string {
    if (!isObject(value)) return '';
    if (value.type === 'button') return this.button(value as Partial<Button>, blockId);
    if (value.type === 'image') return imageLabel(value.alt_text);
    return `[${this.describe(value)}]`;
  }

  private button(button: Partial<Button>, blockId: string | undefined): string {
    const label = textOf(button.text, this) || 'Button';
    const link = typeof button.url === 'string' ? ` (${button.url})` : '';
    if (typeof button.action_id !== 'string') return `[${label}]${link}`;
    const value = typeof button.value === 'string' ? button.value : undefined;
    const shown = { label, actionId: button.action_id, blockId, value };
    const ref = this.buttonRef(shown);
    this.buttons.push({ ref, ...shown });
    return `[${ref}] ${label}${link}`;
  }

  private describe(value: unknown): string {
    if (!isObject(value)) return '____';
    const element = value as ElementJson;
    const placeholder = textOf(element.placeholder, this);
    const type = typeof element.type === 'string' ? element.type : 'element';
    if (TEXT_INPUTS.has(type)) {
      if (typeof element.initial_value === 'string' && element.initial_value !== '') {
        return element.initial_value;
      }
      return placeholder ? `____ (${placeholder})` : '____';
    }
    if (Array.isArray(element.options)) {
      const choices = element.options.map((option) => this.optionLabel(option)).filter(Boolean);
      const chosen = [element.initial_option, ...(element.initial_options ?? [])]
        .map((option) => this.optionLabel(option))
        .filter(Boolean);
      const current = chosen.length > 0 ? `, chosen: ${chosen.join(', ')}` : '';
      return `one of: ${choices.join(' | ')}${current}`;
    }
    if (type === 'datepicker') return element.initial_date ?? 'YYYY-MM-DD';
    if (type === 'timepicker') return element.initial_time ?? 'HH:MM';
    const kind = type.replace(/_/g, ' ');
    return placeholder ? `${kind}: ${placeholder}` : kind;
  }

  private optionLabel(option: Option | undefined): string {
    return isObject(option) ? textOf(option.text, this) : '';
  }
}

/** The name of a field that is only a bold name (`*Beneficiary*`, maybe with an `_(note)_`). */
function boldName(field: unknown, format: (text: string) => string): string | undefined {
  if (!isObject(field) || field.type !== 'mrkdwn' || typeof field.text !== 'string')
    return undefined;
  return /^\*[^*\n]+\*( _[^_\n]+_)?$/.test(field.text) ? format(field.text) : undefined;
}

/** The readable text of a text object: plain_text drawn, mrkdwn formatted; anything else ''. */
function textOf(value: unknown, renderer: Pick<Renderer, 'format' | 'plain'>): string {
  if (!isObject(value) || typeof value.text !== 'string') return '';
  return value.type === 'mrkdwn'
    ? renderer.format(value.text)
    : renderer.plain(value.text, value.emoji !== false);
}

function imageLabel(altText: unknown): string {
  return typeof altText === 'string' && altText !== '' ? `[image: ${altText}]` : '[image]';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
