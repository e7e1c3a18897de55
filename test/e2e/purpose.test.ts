import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { EXAMPLE_CALLS, payoutCommand } from '../helpers/payments.ts';
import {
  approvalMessageTs,
  approveToSubmitted,
  ask,
  openPayoutForm,
  payoutsSent,
  postedCard,
  requestFormValues,
} from '../helpers/slack.ts';

const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const PURPOSE = 'Invoice 2291';

/**
 * A purpose on every payment, with the deployment's default requirement (payouts and
 * transfers): a payout without one refused, with what to type; one with it shown on the card,
 * in `/pay request N` and in the audit CSV, and absent from the body the provider received.
 */
describe('a payout’s purpose, end to end over signed Slack requests', () => {
  let r: Rehearsal;

  beforeAll(async () => {
    r = await startRehearsal({
      // Unset, as a deployment leaves it: payouts and transfers need a purpose.
      env: { PAYOPS_REQUIRE_PURPOSE: '' },
      slack: { rateLimits: 'off' },
    });
  });
  afterAll(() => r.close());

  it('a payout without a purpose is refused with what to type; nothing is stored or sent', async () => {
    const answer = await ask(r, payoutCommand(PAYOUT));
    expect(answer.shown).toContain('`/pay payout` needs a purpose');
    expect(answer.shown).toContain('purpose=\\"Invoice 2291\\"');
    expect(answer.shown).not.toMatch(/Request #\d+/);
    expect(await r.bot.store.listPending(10)).toMatchObject({ total: 0 });
    expect(payoutsSent(r)).toHaveLength(0);
  });

  it('the purpose is on the card and in /pay request N, sealed, and never in the body the provider receives', async () => {
    const answer = await ask(r, payoutCommand({ ...PAYOUT, purpose: PURPOSE }));
    const id = Number(/Request #(\d+)/.exec(answer.shown)?.[1]);
    expect(id).toBeGreaterThan(0);
    const ts = await approvalMessageTs(r, id, APPROVALS);
    expect(postedCard(r, ts)).toContain(`*Purpose:* ${PURPOSE}`);
    expect((await ask(r, `request ${id}`, { userId: 'U0BOB' })).shown).toContain(
      `*Purpose:* ${PURPOSE}`,
    );

    await approveToSubmitted(r, ts);
    const sent = payoutsSent(r);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toBe(JSON.stringify(PAYOUT));
    expect(sent[0]?.body).not.toContain('purpose');
    expect(sent[0]?.body).not.toContain(PURPOSE);
    // Its seals held: it was sent, not stopped.
    expect((await r.bot.store.get(id))?.status).toBe('submitted');
  });

  it('the purpose is in the audit log: its requested row, in the CSV', async () => {
    await ask(r, 'audit', { userId: 'U0BOB' });
    const csv = r.slack.files().at(-1)?.bytes?.toString('utf8') ?? '';
    const requested = csv.split('\r\n').filter((row) => row.includes('"requested"'));
    expect(requested).toHaveLength(1);
    expect(requested[0]).toContain(`""purpose"":""${PURPOSE}""`);
    expect(csv.split('\r\n')[0]).toBe(
      '"id","at","request","actor","event","from","to","fingerprint","detail"',
    );
  });

  it('the request form asks for it: left empty, the error is under the purpose input', async () => {
    const viewId = await openPayoutForm(r);
    const values = requestFormValues(PAYOUT);
    const refused = await r.driver.viewSubmission({
      userId: 'U0ALICE',
      view: { id: viewId, state: { values } },
    });
    const errors = (refused.ack as { errors?: Record<string, string> }).errors ?? {};
    expect(Object.keys(errors)).toEqual(['purpose']);
    expect(errors.purpose).toContain('needs a purpose');

    const accepted = await r.driver.viewSubmission({
      userId: 'U0ALICE',
      view: {
        id: viewId,
        state: { values: { ...values, ...requestFormValues({ purpose: 'Q3 rent' }) } },
      },
    });
    expect(accepted.ack).toBeUndefined();
    const card = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === APPROVALS && JSON.stringify(call.args).includes('Q3 rent'),
    );
    expect(JSON.stringify(card.args)).toContain('*Purpose:* Q3 rent');
  });

  it('a purpose typed alone opens the form with it filled in', async () => {
    const sent = await r.driver.slashCommand({
      text: 'payout purpose="Q4 rent"',
      userId: 'U0ALICE',
      channelId: 'C0PAYOPS',
    });
    expect(sent.status).toBe(200);
    const form = await r.slack.waitForCall('views.update', (call) =>
      JSON.stringify(call.args).includes('Q4 rent'),
    );
    expect(JSON.stringify(form.args)).toContain('"initial_value":"Q4 rent"');
  });
});
