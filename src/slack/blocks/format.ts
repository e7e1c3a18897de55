import type {
  ContextBlock,
  HeaderBlock,
  KnownBlock,
  MrkdwnElement,
  PlainTextElement,
  SectionBlock,
} from '@slack/types';
import { providerAmountText } from '../../domain/decimal.ts';
import { scrub } from '../../domain/scrub.ts';

/**
 * Text helpers and the one layout routine every payops message goes through, so that no
 * builder can exceed Slack's limits (slack-platform-notes §5) or let provider text turn into
 * a mention or a link.
 */

export interface SlackMessage {
  /** Notification and fallback text; always sent with `blocks`. */
  text: string;
  blocks: KnownBlock[];
}

const MAX_BLOCKS = 50;
const MAX_SECTION_TEXT = 3000;
const MAX_HEADER_TEXT = 150;
const MAX_CONTEXT_ELEMENTS = 10;
const MAX_SECTION_FIELDS = 10;
const MAX_FIELD_TEXT = 2000;
/** Slack truncates `text` at 40,000 and advises under 4,000; a notification needs far less. */
const MAX_FALLBACK_TEXT = 3000;
/** Undocumented: ~12–13k characters of block text give `msg_blocks_too_long`; stay well under. */
const MAX_BLOCK_TEXT = 10_000;
/** Room kept for the footer context, whose wording depends on how much of the body fitted. */
const FOOTER_RESERVE = 600;

/** Escapes the three characters Slack's mrkdwn treats as control: `<!channel>` stays text. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * Cuts mrkdwn text to `max` characters with `…`, never inside an `&amp;`-style escape, a
 * `<@U123>`-style token of our own or a surrogate pair, so the cut text is still valid and
 * still escaped. (Escaped text holds no raw `<` but our tokens', so one left open was cut.)
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, Math.max(0, max - 1));
  cut = cut.replace(/&[a-z]{0,3}$/, '').replace(/<[^>]*$/, '');
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** Provider or user text on one line, escaped and cut: safe to place anywhere in mrkdwn. */
export function inlineText(value: string, max = 200): string {
  return truncate(escapeMrkdwn(value.replace(/\s+/g, ' ').trim()), max);
}

/**
 * Text payops did not write and that is not a value it sends (a provider's message, a person's
 * reason or note), through the one scrubber, then on one line, escaped and cut.
 */
export function freeText(value: string, max = 200): string {
  return inlineText(scrub(value), max);
}

/** An identifier in `code` style; a backtick inside it would end the span, so it is swapped. */
export function code(value: string, max = 80): string {
  return `\`${inlineText(value.replace(/`/g, 'ˋ'), max)}\``;
}

/**
 * `1250.50 USDC`: the amount exactly as written (never through a number, which would turn
 * `1250.50` into `1250.5`), then its currency when one is known: what a person requested.
 */
export function amountText(amount: string, currency?: string): string {
  const digits = escapeMrkdwn(amount);
  return currency === undefined ? digits : `${digits} ${inlineText(currency, 16)}`;
}

/** `97,975.00 USDC`: an amount payops read from the provider (`providerAmountText`), escaped. */
export function readAmountText(amount: string, currency?: string): string {
  return amountText(providerAmountText(amount), currency);
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * An ISO timestamp with a zone as Slack's date token, shown in each reader's own time zone,
 * with the provider's exact text as its fallback; `undefined` for anything else.
 */
export function dateText(value: string): string | undefined {
  const millis = ISO_DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(millis)) return undefined;
  return `<!date^${Math.floor(millis / 1000)}^{date_short_pretty} {time_secs}|${escapeMrkdwn(value)}>`;
}

const MENTION = /<(?:@[UW][A-Z0-9]+|#[CGD][A-Z0-9]+|!subteam\^S[A-Z0-9]+)(?:\|[^<>&|]{0,80})?>/g;

/**
 * Configured text that may name people the Slack way (`<@U123>`, `<#C123>`,
 * `<!subteam^S123>`, or a bare `U123`/`S123`/`C123` id): those stay live mentions,
 * everything else is escaped, so no `<!channel>` or link can slip through.
 */
export function textWithMentions(text: string): string {
  const bare = text.trim();
  if (/^[UW][A-Z0-9]{2,}$/.test(bare)) return `<@${bare}>`;
  if (/^S[A-Z0-9]{2,}$/.test(bare)) return `<!subteam^${bare}>`;
  if (/^[CGD][A-Z0-9]{2,}$/.test(bare)) return `<#${bare}>`;
  let out = '';
  let last = 0;
  for (const match of text.matchAll(MENTION)) {
    out += escapeMrkdwn(text.slice(last, match.index)) + match[0];
    last = match.index + match[0].length;
  }
  return out + escapeMrkdwn(text.slice(last));
}

/** Joins parts with `separator` while they fit in `max`, ending with `…` when some are left. */
export function joinWithin(parts: readonly string[], separator: string, max: number): string {
  let out = '';
  for (const [index, part] of parts.entries()) {
    const next = out === '' ? part : `${out}${separator}${part}`;
    // Unless this is the last part, keep room for the `${separator}…` that may follow.
    const room = index === parts.length - 1 ? max : max - separator.length - 1;
    if (next.length > room) return out === '' ? truncate(part, max) : `${out}${separator}…`;
    out = next;
  }
  return out;
}

/**
 * `text` ended as a sentence: a full stop is added unless it already ends with one (or `!`,
 * `?`, `…`), as quoted text often does — a provider's message, a person's reason. Every line
 * that ends with text payops did not write goes through it, so none reads `sent..`.
 */
export function endSentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?…]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

/** `1 wallet`, `3 wallets`. */
export function counted(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

// ——— blocks ———

/** Every mrkdwn object is `verbatim`: Slack then turns no bare URL, `@channel` or `#name` live. */
function mrkdwn(text: string): MrkdwnElement {
  return { type: 'mrkdwn', text, verbatim: true };
}

export function header(text: string): HeaderBlock {
  const plain = text.replace(/\s+/g, ' ').trim();
  return { type: 'header', text: { type: 'plain_text', text: truncate(plain, MAX_HEADER_TEXT) } };
}

export function section(text: string): SectionBlock {
  return { type: 'section', text: mrkdwn(truncate(text, MAX_SECTION_TEXT)) };
}

/** Lines in as few sections as hold them, each line whole (unless it alone is too long). */
export function sectionsOfLines(lines: readonly string[]): SectionBlock[] {
  const texts: string[] = [];
  for (const line of lines) {
    const last = texts.at(-1);
    if (last !== undefined && last.length + 1 + line.length <= MAX_SECTION_TEXT) {
      texts[texts.length - 1] = `${last}\n${line}`;
    } else {
      texts.push(line);
    }
  }
  return texts.map(section);
}

/**
 * A value exactly as it is sent, for a section field: plain_text, which Slack renders without
 * parsing (`*`, `_`, `~`, backticks, `<!channel>`, `:emoji:` all stay as typed). Values payops
 * accepts are far shorter than the field limit, so a value is never cut in practice.
 */
export function literal(value: string): PlainTextElement {
  // Slack refuses an empty text; payops accepts no blank value, so only a foreign one is.
  const text = value.trim() === '' ? '(blank value)' : truncate(value, MAX_FIELD_TEXT);
  return { type: 'plain_text', text, emoji: false };
}

/** A name in bold (mrkdwn) and the value it names (shown literally): one row of a fact table. */
export interface Fact {
  label: string;
  value: PlainTextElement;
}

/** Facts as Slack's two-column section fields: name on the left, value on the right. */
export function factSections(facts: readonly Fact[]): SectionBlock[] {
  const perSection = MAX_SECTION_FIELDS / 2;
  const sections: SectionBlock[] = [];
  for (let start = 0; start < facts.length; start += perSection) {
    const fields = facts
      .slice(start, start + perSection)
      .flatMap((fact) => [mrkdwn(truncate(fact.label, MAX_FIELD_TEXT)), fact.value]);
    sections.push({ type: 'section', fields });
  }
  return sections;
}

export function context(texts: readonly string[]): ContextBlock {
  return {
    type: 'context',
    elements: texts.slice(0, MAX_CONTEXT_ELEMENTS).map((text) => mrkdwn(truncate(text, 1000))),
  };
}

/** A short message: one section, and a context line when there are details to add. */
export function notice(text: string, details: readonly string[] = []): SlackMessage {
  const blocks: KnownBlock[] = [section(text)];
  if (details.length > 0) blocks.push(context(details));
  return { text: truncate(text, MAX_FALLBACK_TEXT), blocks };
}

/** Characters of text in our blocks: what Slack's ~12k `msg_blocks_too_long` limit counts. */
function blockTextLength(blocks: readonly KnownBlock[]): number {
  let length = 0;
  for (const block of blocks) {
    if (block.type === 'header' || block.type === 'section') length += block.text?.text.length ?? 0;
    if (block.type === 'section') {
      for (const field of block.fields ?? []) length += field.text.length;
    }
    if (block.type === 'context') {
      for (const element of block.elements) if ('text' in element) length += element.text.length;
    }
  }
  return length;
}

export interface Layout {
  header: string;
  /** Always shown, after the header: notes and lead lines (kept short by their builders). */
  intro: readonly string[];
  /** Always shown, after the intro: blocks of values that must read exactly as they are. */
  facts?: readonly SectionBlock[] | undefined;
  /** The body, laid out in order until Slack's limits are reached. */
  units: Iterable<string>;
  /** `each`: a section per unit (list items); `lines`: units are lines sharing sections. */
  packing: 'each' | 'lines';
  /** Footer context for `shown` units laid out: the cut note, the request id. */
  footer(shown: number): string[];
  /** Fallback text for `shown` units laid out. */
  text(shown: number): string;
}

/**
 * Lays a message out within Slack's limits: header, intro, as many body units as fit in the
 * block and character budgets, then the footer, which is told how many units were shown.
 */
export function layOut(layout: Layout): SlackMessage {
  const top: KnownBlock[] = [header(layout.header)];
  if (layout.intro.length > 0) top.push(section(layout.intro.join('\n')));
  top.push(...(layout.facts ?? []));
  const budget = {
    blocks: MAX_BLOCKS - top.length - 1,
    chars: MAX_BLOCK_TEXT - blockTextLength(top) - FOOTER_RESERVE,
  };
  const { blocks: body, shown } = pack(layout.units, layout.packing, budget);
  const blocks = [...top, ...body];
  const footer = fitFooter(layout.footer(shown));
  if (footer.length > 0) blocks.push(context(footer));
  return { text: truncate(layout.text(shown), MAX_FALLBACK_TEXT), blocks };
}

function pack(
  units: Iterable<string>,
  packing: Layout['packing'],
  budget: { blocks: number; chars: number },
): { blocks: SectionBlock[]; shown: number } {
  const sections: string[] = [];
  let shown = 0;
  for (const raw of units) {
    const unit = truncate(raw, MAX_SECTION_TEXT);
    const last = sections.length - 1;
    const current = sections[last];
    if (packing === 'lines' && current !== undefined) {
      const joined = `${current}\n${unit}`;
      if (joined.length <= MAX_SECTION_TEXT && budget.chars >= unit.length + 1) {
        sections[last] = joined;
        budget.chars -= unit.length + 1;
        shown++;
        continue;
      }
    }
    if (budget.blocks < 1 || budget.chars < unit.length) break;
    sections.push(unit);
    budget.blocks--;
    budget.chars -= unit.length;
    shown++;
  }
  return { blocks: sections.map(section), shown };
}

/** Footer texts cut so that together they stay within the room reserved for them. */
function fitFooter(texts: readonly string[]): string[] {
  const share = Math.floor(FOOTER_RESERVE / Math.max(1, texts.length));
  return texts.filter((text) => text !== '').map((text) => truncate(text, share));
}
