import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_COMMAND_WORDS } from '../../src/domain/commands.ts';
import { type Rehearsal, startRehearsal } from '../../src/sandbox/rehearsal.ts';
import { ask } from '../helpers/slack.ts';

let rehearsal: Rehearsal;
beforeAll(async () => {
  rehearsal = await startRehearsal();
});
afterAll(() => rehearsal.close());

const word = fc.constantFrom(...READ_COMMAND_WORDS, 'payout', 'balance', 'fx', '--sync', '--limit');
const quote = fc.constantFrom('"', "'", '“', '”', '‘', '’', '„', '`');
const piece = fc.oneof(
  word,
  quote,
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
  fc.constantFrom(
    'wal_acme_eth_ops',
    'amount=1.5',
    'x="a b"',
    '1e9',
    '-1',
    '0.000',
    '<!channel>',
    '&amp;',
  ),
);
const commandText = fc.oneof(
  { weight: 8, arbitrary: fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(' ')) },
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.string({ minLength: 3_000, maxLength: 9_000 }) },
);

describe('whatever text follows /pay', () => {
  it('the bot acknowledges, answers exactly once, and never fails inside (1,000 generated texts)', async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(commandText, async (text) => {
        runs++;
        const sent = await rehearsal.driver.slashCommand({
          text,
          userId: 'U0ALICE',
          channelId: 'C0PAYOPS',
        });
        expect(sent.status).toBe(200);
        // The answer is a message on the response_url, or a form opened with the trigger.
        const answer = await rehearsal.slack.waitFor(
          () =>
            rehearsal.slack.responsesTo(sent.responseUrlId)[0]?.body ??
            modalsOpenedWith(sent.triggerId)[0]?.args,
          { timeoutMs: 8_000 },
        );
        const shown = JSON.stringify(answer);
        expect(shown.length).toBeGreaterThan(2);
        expect(shown).not.toMatch(/failed inside payops|undefined|\[object Object\]/);
      }),
      { numRuns: 1_000 },
    );
    expect(runs).toBeGreaterThanOrEqual(1_000);
    // Still alive and well afterwards, and no command was answered twice.
    expect((await ask(rehearsal, 'me')).shown).toContain('cus_acme01');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const modals = rehearsal.slack.callsTo('views.open').length;
    expect(rehearsal.slack.responses.length + modals).toBe(runs + 1);
  }, 120_000);
});

function modalsOpenedWith(triggerId: string) {
  return rehearsal.slack.callsTo('views.open').filter((call) => call.args.trigger_id === triggerId);
}
