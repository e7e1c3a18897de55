import { afterEach, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import type { ApiCall, SlackEmulationOptions } from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { CARD_EVENT, NOTICE_EVENT } from '../../src/slack/outbox.ts';
import { ask } from '../helpers/slack.ts';

/**
 * Every Slack message the workflow causes goes through the outbox: it survives Slack failing,
 * keeps to Slack's limits, coalesces redraws, and posts each card and notice exactly once.
 */

const APPROVALS = 'C0APPROVALS';
const payout = (cents: number) =>
  `payout wallet_id=wal_acme_sol_treasury amount=${(cents / 100).toFixed(2)} currency=USDC beneficiary_name="Jane Roe" beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach`;

let r: Rehearsal | undefined;
afterEach(async () => {
  await r?.close();
  r = undefined;
});

function start(slack: SlackEmulationOptions = {}, env: Record<string, string> = {}) {
  return startRehearsal({ slack, env });
}

/** Calls that Slack carried out (not refused): what people see. */
function done(calls: readonly ApiCall[], method: string): ApiCall[] {
  return calls.filter((call) => call.method === method && call.response.ok === true);
}

function metadataOf(call: ApiCall): {
  event_type?: string;
  event_payload?: Record<string, unknown>;
} {
  const raw = call.args.metadata;
  return (typeof raw === 'string' ? JSON.parse(raw) : raw) ?? {};
}

/** Cards posted per request, and notices posted per delivery: each must be exactly 1. */
function postsBy(r: Rehearsal, eventType: string, field: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of r.slack.calls) {
    const message = r.slack.message(String(call.args.channel), String(call.response.ts ?? ''));
    if (call.method !== 'chat.postMessage' || message === undefined) continue;
    const metadata = metadataOf(call);
    if (metadata.event_type !== eventType) continue;
    const key = String(metadata.event_payload?.[field]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Types `/pay payout` and waits for the outbox's confirmation; the card is posted by then. */
async function requested(r: Rehearsal, cents: number): Promise<{ id: number; ts: string }> {
  const answer = await ask(r, payout(cents), { timeoutMs: 20_000 });
  const id = Number(/Request #(\d+)/.exec(String(answer.body.text))?.[1]);
  const card = await r.bot.store.get(id);
  expect(card?.messageTs).toBeDefined();
  return { id, ts: card?.messageTs as string };
}

function approve(r: Rehearsal, ts: string) {
  return r.driver.blockAction({
    userId: 'U0BOB',
    actionId: ACTION.approve,
    message: { channel: APPROVALS, ts },
  });
}

describe('the Slack outbox', () => {
  it('after Slack answers 500 to every chat.* call for a while, delivers every card and outcome once', {
    timeout: 60_000,
  }, async () => {
    r = await start();
    const before = await Promise.all([requested(r, 101), requested(r, 102)]);
    const endOutage = r.slack.outage(/^chat\./);
    for (const card of before) await approve(r, card.ts);
    const during = await Promise.all(
      [103, 104].map((cents) =>
        r?.driver.slashCommand({
          text: payout(cents),
          userId: 'U0ALICE',
          channelId: 'C0PAYOPS',
        }),
      ),
    );
    await r.slack.waitFor(
      () => r?.sandbox.requests.filter((q) => q.operationId === 'createPayout').length === 2,
      {
        description: 'both approved payouts at the provider',
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const failedDuringOutage = r.slack.calls.filter((call) => call.status === 500).length;
    expect(failedDuringOutage).toBeGreaterThan(2);
    endOutage();
    const recoveredAt = Date.now();

    // The two new requests get their cards, and the two outcomes their redraw and notice.
    await r.slack.waitFor(() => postsBy(r as Rehearsal, CARD_EVENT, 'request_id').size === 4, {
      timeoutMs: 30_000,
      description: 'four cards',
    });
    await r.slack.waitFor(
      () =>
        before.every((card) =>
          done(r?.slack.calls ?? [], 'chat.postMessage').some(
            (call) => call.args.thread_ts === card.ts && /submitted/.test(String(call.args.text)),
          ),
        ),
      { timeoutMs: 30_000, description: 'both outcomes told in their threads' },
    );
    for (const sent of during) {
      const confirmation = await r.slack.nextResponse(sent?.responseUrlId as string, {
        timeoutMs: 30_000,
      });
      expect(JSON.stringify(confirmation.body)).toContain('Its approval card is posted');
    }
    expect(Date.now() - recoveredAt).toBeLessThan(30_000);
    expect([...postsBy(r, CARD_EVENT, 'request_id').values()]).toEqual([1, 1, 1, 1]);
    expect([...postsBy(r, NOTICE_EVENT, 'delivery_id').values()].every((n) => n === 1)).toBe(true);
    for (const card of before) {
      const shown = r.slack.message(APPROVALS, card.ts);
      expect(JSON.stringify(shown)).toContain('Submitted');
    }
  });

  it('a card whose post went unanswered (connection dropped after Slack posted it) is found, not posted again', {
    timeout: 30_000,
  }, async () => {
    r = await start();
    r.slack.dropAfterNext('chat.postMessage');
    const { id } = await requested(r, 205);
    expect(postsBy(r, CARD_EVENT, 'request_id').get(String(id))).toBe(1);
    expect(r.slack.callsTo('conversations.history').length).toBeGreaterThanOrEqual(1);
    const deliveries = await r.bot.queries.deliveries(id);
    expect(deliveries.find((d) => d.kind === 'card')).toMatchObject({
      state: 'delivered',
      attempts: 2,
    });
  });

  it('a click on a card Slack has posted but payops has not yet recorded waits for the record, and counts', {
    timeout: 30_000,
  }, async () => {
    r = await start();
    // The post's answer is lost: payops records the card only once it has found it (≥ 0.5 s).
    r.slack.dropAfterNext('chat.postMessage');
    const sent = await r.driver.slashCommand({
      text: payout(609),
      userId: 'U0ALICE',
      channelId: 'C0PAYOPS',
    });
    const card = await r.slack.waitFor(
      () => r?.slack.channel(APPROVALS).messages.find((m) => m.metadata?.event_type === CARD_EVENT),
      { description: 'the card in the channel' },
    );
    const id = Number(card.metadata?.event_payload.request_id);
    expect((await r.bot.store.get(id))?.messageTs).toBeUndefined();
    const click = await approve(r, card.ts);
    const told = await r.slack.waitFor(
      () =>
        (r?.slack.responsesTo(click.responseUrlId as string).length ?? 0) > 0 ||
        (r?.sandbox.requests.some((q) => q.operationId === 'createPayout') ?? false),
      { description: 'the click worked on', timeoutMs: 10_000 },
    );
    expect(told).toBe(true);
    expect(r.slack.responsesTo(click.responseUrlId as string)).toEqual([]);
    expect(r.sandbox.requests.filter((q) => q.operationId === 'createPayout')).toHaveLength(1);
    await r.slack.nextResponse(sent.responseUrlId, { timeoutMs: 10_000 });
  });

  it('keeps to Slack’s limits: a burst of requests waits in the outbox instead of meeting 429s', {
    timeout: 60_000,
  }, async () => {
    // Slack's limits ×10, and payops pacing itself to the same ×10.
    r = await start({ rateLimits: { scale: 10 } });
    const walletListsBefore = r.sandbox.requests.filter(
      (q) => q.operationId === 'listWallets',
    ).length;
    const sent = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        r?.driver.slashCommand({ text: payout(300 + i), userId: 'U0ALICE', channelId: 'C0PAYOPS' }),
      ),
    );
    for (const s of sent)
      await r.slack.nextResponse(s?.responseUrlId as string, { timeoutMs: 30_000 });
    const cards = postsBy(r, CARD_EVENT, 'request_id');
    expect(cards.size).toBe(40);
    expect([...cards.values()].every((n) => n === 1)).toBe(true);
    // Wallet names for the cards: one list from the provider for the whole burst.
    const walletLists = r.sandbox.requests.filter((q) => q.operationId === 'listWallets').length;
    expect(walletLists - walletListsBefore).toBe(1);
    const slackCalls = r.slack.calls.length;
    const refused = Object.values(r.slack.rateLimited).reduce((a, b) => a + b, 0);
    // Unpaced, 40 cards at once would meet about ten 429s; paced, a jittered call may meet one.
    expect(refused).toBeLessThanOrEqual(2);
    expect(slackCalls).toBeGreaterThanOrEqual(40);
  });

  it('coalesces redraws: a card changed many times while its redraw waits is updated once', {
    timeout: 30_000,
  }, async () => {
    r = await start();
    // Three changes of the card (freeze, unfreeze, freeze) while Slack refuses chat.update.
    const { id, ts } = await requested(r, 406);
    const updatesBefore = r.slack.callsTo('chat.update').length;
    const endOutage = r.slack.outage('chat.update');
    await r.bot.workflow.setFreeze(true, 'U0CAROL', 'drill');
    await r.bot.workflow.setFreeze(false, 'U0CAROL', undefined);
    await r.bot.workflow.setFreeze(true, 'U0CAROL', 'drill two');
    const refusedDuring = r.slack.callsTo('chat.update').length - updatesBefore;
    endOutage();
    await r.slack.waitFor(
      () => JSON.stringify(r?.slack.message(APPROVALS, ts) ?? '').includes('drill two'),
      { timeoutMs: 20_000, description: 'the card showing the last freeze' },
    );
    const waiting = (await r.bot.queries.deliveries(id)).filter((d) => d.kind === 'card_update');
    // One redraw row for the three changes (plus at most one in flight when the outage began).
    expect(waiting.length).toBeLessThanOrEqual(2);
    expect(
      done(r.slack.calls, 'chat.update').filter((call) => call.args.ts === ts).length,
    ).toBeLessThanOrEqual(2);
    expect(refusedDuring).toBeLessThan(10);
  });

  it('/pay request N shows each delivery; a card Slack refuses tells the requester the real cause', {
    timeout: 30_000,
  }, async () => {
    r = await start();
    r.slack.failNext('chat.postMessage', 'not_in_channel');
    const answer = await ask(r, payout(507), { timeoutMs: 20_000 });
    expect(answer.shown).toContain('could not be posted');
    expect(answer.shown).toContain('invite payops');
    const id = Number(/Request #(\d+)/.exec(answer.shown)?.[1]);
    const detail = await ask(r, `request ${id}`, { userId: 'U0BOB' });
    expect(detail.shown).toMatch(/approval card.*failed/i);

    // A Slack 500 is not a missing invitation: it is retried, and said as Slack failing.
    r.slack.failNext('chat.postMessage', 'internal_error', { status: 500 });
    const { id: second } = await requested(r, 508);
    const card = (await r.bot.queries.deliveries(second)).find((d) => d.kind === 'card');
    expect(card).toMatchObject({ state: 'delivered', attempts: 2 });
  });
});
