import type { KnownBlock } from '@slack/types';
import { expect } from 'vitest';
import type { SlackMessage } from '../../../src/slack/blocks/format.ts';

/**
 * Slack's limits restated here on purpose (slack-platform-notes §5), not imported from the
 * code under test, so a wrong constant there cannot hide a wrong message.
 */
const SLACK = {
  blocks: 50,
  sectionText: 3000,
  headerText: 150,
  contextElements: 10,
  sectionFields: 10,
  fieldText: 2000,
  elementText: 3000,
  messageText: 4000,
  /** Undocumented `msg_blocks_too_long` threshold (~12k). */
  totalBlockText: 12_000,
};

/**
 * Slack control sequences payops itself writes: mentions, channel links, date tokens, and the
 * link to a supporting document's Slack file.
 */
const OWN_TOKENS =
  /<(?:(?:@[UW][A-Z0-9]+|#[CGD][A-Z0-9]+|!subteam\^S[A-Z0-9]+)(?:\|[^<>]*)?|!date\^\d+\^[^|<>]+\|[^<>]*|https?:\/\/[^|<>\s]+\/files\/[^|<>\s]+\|[^<>]*)>/g;

/** Every text of every block, the way Slack counts them against `msg_blocks_too_long`. */
export function blockTexts(blocks: readonly KnownBlock[]): string[] {
  const texts: string[] = [];
  for (const block of blocks) {
    if (block.type === 'header') texts.push(block.text.text);
    else if (block.type === 'section') {
      if (block.text) texts.push(block.text.text);
      for (const field of block.fields ?? []) texts.push(field.text);
    } else if (block.type === 'context') {
      for (const element of block.elements) if ('text' in element) texts.push(element.text);
    }
  }
  return texts;
}

/** Everything a person could read in the message: fallback text and block texts. */
export function allText(message: SlackMessage): string {
  return [message.text, ...blockTexts(message.blocks)].join('\n');
}

/** Slack's limits, no garbage from missing values, and no provider text left live. */
export function expectValidMessage(message: SlackMessage): void {
  expect(message.text.length).toBeGreaterThan(0);
  expect(message.text.length).toBeLessThan(SLACK.messageText);
  expect(message.blocks.length).toBeGreaterThan(0);
  expect(message.blocks.length).toBeLessThanOrEqual(SLACK.blocks);
  for (const block of message.blocks) {
    expect(['header', 'section', 'context']).toContain(block.type);
    if (block.type === 'header') {
      expect(block.text.text.trim().length).toBeGreaterThan(0);
      expect(block.text.text.length).toBeLessThanOrEqual(SLACK.headerText);
    }
    if (block.type === 'section') {
      // A section has text, fields, or both.
      expect((block.text?.text.trim().length ?? 0) + (block.fields?.length ?? 0)).toBeGreaterThan(
        0,
      );
      if (block.text) {
        expect(block.text.text.length).toBeLessThanOrEqual(SLACK.sectionText);
        expect(block.text).toMatchObject({ type: 'mrkdwn', verbatim: true });
      }
      expect(block.fields?.length ?? 0).toBeLessThanOrEqual(SLACK.sectionFields);
      for (const field of block.fields ?? []) {
        expect(field.text.trim().length).toBeGreaterThan(0);
        expect(field.text.length).toBeLessThanOrEqual(SLACK.fieldText);
        // Values are plain text without emoji codes, so they read as typed; names are mrkdwn.
        expect(field).toMatchObject(
          field.type === 'plain_text' ? { emoji: false } : { type: 'mrkdwn', verbatim: true },
        );
      }
    }
    if (block.type === 'context') {
      expect(block.elements.length).toBeGreaterThan(0);
      expect(block.elements.length).toBeLessThanOrEqual(SLACK.contextElements);
      for (const element of block.elements) {
        expect(element).toMatchObject({ type: 'mrkdwn', verbatim: true });
        if ('text' in element) {
          expect(element.text.trim().length).toBeGreaterThan(0);
          expect(element.text.length).toBeLessThanOrEqual(SLACK.elementText);
        }
      }
    }
  }
  const total = blockTexts(message.blocks).reduce((sum, text) => sum + text.length, 0);
  expect(total).toBeLessThan(SLACK.totalBlockText);
  const json = JSON.stringify(message);
  expect(json).not.toContain('undefined');
  expect(json).not.toContain('[object Object]');
  expect(json).not.toContain('NaN');
  expectNoLiveMarkup(message);
}

/** After payops' own tokens are removed, no `<`, `>` or bare `&` is left for Slack to parse. */
export function expectNoLiveMarkup(message: SlackMessage): void {
  for (const text of [message.text, ...mrkdwnTexts(message.blocks)]) {
    const rest = text.replace(OWN_TOKENS, '');
    expect(rest).not.toMatch(/[<>]/);
    expect(rest).not.toMatch(/&(?!amp;|lt;|gt;)/);
  }
}

/** The texts Slack parses as mrkdwn: plain_text (headers, values) is shown as it is. */
function mrkdwnTexts(blocks: readonly KnownBlock[]): string[] {
  const texts: string[] = [];
  for (const block of blocks) {
    if (block.type === 'section') {
      for (const text of [block.text, ...(block.fields ?? [])]) {
        if (text?.type === 'mrkdwn') texts.push(text.text);
      }
    } else if (block.type === 'context') {
      for (const element of block.elements) if (element.type === 'mrkdwn') texts.push(element.text);
    }
  }
  return texts;
}

/** The rows of a message's fact tables: each name (mrkdwn) with the value shown beside it. */
export function factRows(blocks: readonly KnownBlock[]): [string, string][] {
  const rows: [string, string][] = [];
  for (const block of blocks) {
    if (block.type !== 'section') continue;
    const fields = block.fields ?? [];
    for (let index = 0; index + 1 < fields.length; index += 2) {
      const [name, value] = [fields[index], fields[index + 1]];
      if (name?.type === 'mrkdwn' && value?.type === 'plain_text')
        rows.push([name.text, value.text]);
    }
  }
  return rows;
}
