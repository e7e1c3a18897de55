import { rehearsalEnv } from '../src/rehearsal/rehearsal.ts';
import { startPaymentsSandbox } from '../src/rehearsal/sandbox/payments-api.ts';
import { startSlackEmulation } from '../src/rehearsal/sandbox/slack.ts';
import { ACTION } from '../src/slack/interaction-ids.ts';
import { CARD_EVENT, NOTICE_EVENT } from '../src/slack/outbox.ts';
import { markOf, payoutText, tally } from './burst.ts';
import { sleep } from './load.ts';
import type { ChildApp } from './processes.ts';
import { APPROVALS_CHANNEL } from './slack-requests.ts';

/**
 * Slack answering every `chat.*` call with 500 for `outageMs`, at Slack's real limits: requests
 * approved before it (their outcomes wait) and requests made during it (their cards wait). After
 * it ends: how long until every card and outcome is delivered, and whether any was lost or
 * delivered twice.
 */

export interface OutagePlan {
  outageMs: number;
  /** Requests approved during the outage, and as many made during it. */
  requests: number;
}

export interface OutageResult {
  store: string;
  outageSec: number;
  requests: number;
  /** From the end of the outage to the last card posted and the last outcome shown. */
  lastCardAfterSec: number;
  lastOutcomeAfterSec: number;
  failedCalls: number;
  cards: { lost: number; duplicated: number };
  outcomes: { lost: number; duplicated: number };
  providerPayouts: number;
}

const GIVE_UP_AFTER_MS = 5 * 60_000;

export async function runOutage(
  plan: OutagePlan,
  store: { engine: string; env: Record<string, string> },
  startPayops: (name: string, env: Record<string, string>) => Promise<ChildApp>,
): Promise<OutageResult> {
  const sandbox = await startPaymentsSandbox();
  const slack = await startSlackEmulation();
  let payops: ChildApp | undefined;
  try {
    const env = { ...rehearsalEnv(sandbox, slack), LOG_LEVEL: 'warn', ...store.env };
    payops = await startPayops(`payops-${store.engine}-outage`, env);
    const driver = slack.driver(payops.eventsUrl);
    const request = (index: number) =>
      driver.slashCommand({ text: payoutText(index), userId: 'U0ALICE', channelId: 'C0PAYOPS' });
    const cardOf = (id: string) =>
      slack
        .channel(APPROVALS_CHANNEL)
        .messages.find((message) => markOf(message, CARD_EVENT) === id);

    // Before: requests whose cards are posted (at Slack's pace), to be approved during it.
    const approved = Array.from({ length: plan.requests }, (_, i) => String(i + 1));
    for (let index = 0; index < plan.requests; index++) await request(index);
    await slack.waitFor(() => approved.every(cardOf), {
      timeoutMs: 60_000,
      description: 'the cards made before the outage',
    });

    const endOutage = slack.outage(/^chat\./);
    const outageStarted = performance.now();
    for (const id of approved) {
      const card = cardOf(id);
      await driver.blockAction({
        userId: 'U0BOB',
        actionId: ACTION.approve,
        message: { channel: APPROVALS_CHANNEL, ts: card?.ts as string },
      });
    }
    const made = Array.from({ length: plan.requests }, (_, i) => String(plan.requests + i + 1));
    for (let index = 0; index < plan.requests; index++) await request(plan.requests + index);
    await sleep(plan.outageMs - (performance.now() - outageStarted));
    endOutage();
    const recovered = performance.now();
    const failedCalls = slack.calls.filter((call) => call.status === 500).length;

    let lastCard = 0;
    let lastOutcome = 0;
    const told = (id: string) =>
      slack
        .channel(APPROVALS_CHANNEL)
        .messages.some((message) => markOf(message, NOTICE_EVENT) === id);
    const deadline = recovered + GIVE_UP_AFTER_MS;
    const cardsLeft = new Set(made);
    const outcomesLeft = new Set(approved);
    while ((cardsLeft.size > 0 || outcomesLeft.size > 0) && performance.now() < deadline) {
      for (const id of cardsLeft) {
        if (!cardOf(id)) continue;
        cardsLeft.delete(id);
        lastCard = performance.now() - recovered;
      }
      for (const id of outcomesLeft) {
        // Submitted, or already succeeded if following read it while Slack was down.
        if (!told(id) || !/(submitted to|succeeded at) the provider/.test(cardOf(id)?.text ?? '')) {
          continue;
        }
        outcomesLeft.delete(id);
        lastOutcome = performance.now() - recovered;
      }
      await sleep(100);
    }
    const all = new Set([...approved, ...made]);
    return {
      store: store.engine,
      outageSec: plan.outageMs / 1000,
      requests: plan.requests * 2,
      lastCardAfterSec: lastCard / 1000,
      lastOutcomeAfterSec: lastOutcome / 1000,
      failedCalls,
      cards: tally(slack, CARD_EVENT, all),
      outcomes: tally(slack, NOTICE_EVENT, new Set(approved)),
      providerPayouts: sandbox.requests.filter((call) => call.operationId === 'createPayout')
        .length,
    };
  } finally {
    await payops?.stop();
    await Promise.all([sandbox.close(), slack.close()]);
  }
}
