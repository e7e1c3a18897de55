import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { ACTION, VIEW } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS, payoutCommand } from '../helpers/payments.ts';
import {
  approvalMessageTs,
  approveToSubmitted,
  ask,
  formOpened,
  openPayoutForm,
  payoutsSent,
  postedCard,
  requestedAuditRows,
  requestFormValues,
} from '../helpers/slack.ts';

const APPROVALS = 'C0APPROVALS';
const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const INVOICE = Buffer.from('%PDF-1.7\nInvoice 2291: 25.00 USDC to Jane Roe\n%%EOF\n');
const INVOICE_SHA256 = createHash('sha256').update(INVOICE).digest('hex');

/**
 * A supporting document, end to end over signed Slack requests: a file shared in the channel
 * and named on the command line, or attached in the request form, is read once with the bot
 * token, shown on the card with its hash, sealed, and its SHA-256 written in the audit chain; a
 * file the requester may not attach, or no file id at all, stores nothing.
 */
describe('a payout’s supporting document, end to end over signed Slack requests', () => {
  let r: Rehearsal;

  beforeAll(async () => {
    r = await startRehearsal({ slack: { rateLimits: 'off' } });
  });
  afterAll(() => r.close());

  it('a file shared in the channel is read once, shown on the card with its hash, and never sent', async () => {
    const file = r.slack.uploadFileAs('U0ALICE', {
      name: 'invoice-2291.pdf',
      bytes: INVOICE,
      channelId: 'C0PAYOPS',
    });
    const answer = await ask(
      r,
      payoutCommand({ ...PAYOUT, purpose: 'Invoice 2291', file: file.id }),
    );
    const id = Number(/Request #(\d+)/.exec(answer.shown)?.[1]);
    expect(id).toBeGreaterThan(0);
    const ts = await approvalMessageTs(r, id, APPROVALS);
    const card = postedCard(r, ts);
    expect(card).toContain('*Document:* <');
    expect(card).toContain('|invoice-2291.pdf>');
    expect(card).toContain(INVOICE_SHA256.slice(0, 12));
    expect((await ask(r, `request ${id}`, { userId: 'U0BOB' })).shown).toContain(
      INVOICE_SHA256.slice(0, 12),
    );
    // Read once, with the bot token in its header; nothing else asked for it.
    expect(r.slack.downloads).toEqual([
      expect.objectContaining({ fileId: file.id, authorized: true }),
    ]);
    expect(await r.bot.store.get(id)).toMatchObject({
      document: {
        fileId: file.id,
        name: 'invoice-2291.pdf',
        size: INVOICE.length,
        sha256: INVOICE_SHA256,
      },
    });

    await approveToSubmitted(r, ts);
    const sent = payoutsSent(r);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toBe(JSON.stringify(PAYOUT));
    // Its seals, which hold the document's hash, held: it was sent, not stopped.
    expect((await r.bot.store.get(id))?.status).toBe('submitted');
  });

  it('the file’s SHA-256 is in the audit chain: its requested row, in the CSV', async () => {
    const requested = await requestedAuditRows(r);
    expect(requested).toHaveLength(1);
    expect(requested[0]).toContain(`""sha256"":""${INVOICE_SHA256}""`);
    expect(requested[0]).toContain('""name"":""invoice-2291.pdf""');
  });

  it('the request form’s file input attaches a file the requester uploaded with it', async () => {
    const bytes = Buffer.from('Quote Q3: rent');
    const file = r.slack.uploadFileAs('U0ALICE', { name: 'quote-q3.txt', bytes });
    const viewId = await openPayoutForm(r);
    const accepted = await r.driver.viewSubmission({
      userId: 'U0ALICE',
      view: {
        id: viewId,
        state: {
          values: {
            ...requestFormValues({ ...PAYOUT, amount: '31.00', purpose: 'Q3 rent' }),
            file: { file: { type: 'file_input', files: [r.slack.fileObject(file.id)] } },
          },
        },
      },
    });
    expect(accepted.ack).toBeUndefined();
    const card = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === APPROVALS && JSON.stringify(call.args).includes('Q3 rent'),
    );
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(JSON.stringify(card.args)).toContain('|quote-q3.txt>');
    expect(JSON.stringify(card.args)).toContain(sha256.slice(0, 12));
  });

  it('an edit and resubmit that attaches no file keeps the document it replaces, not read again', async () => {
    const bytes = Buffer.from('Invoice 2294');
    const file = r.slack.uploadFileAs('U0ALICE', {
      name: 'invoice-2294.pdf',
      bytes,
      channelId: 'C0PAYOPS',
    });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const asked = await ask(
      r,
      payoutCommand({ ...PAYOUT, amount: '43.00', purpose: 'Invoice 2294', file: file.id }),
    );
    const id = Number(/Request #(\d+)/.exec(asked.shown)?.[1]);
    const ts = await approvalMessageTs(r, id, APPROVALS);
    const askBefore = r.slack.callsTo('views.update').length;
    const click = (userId: string, actionId: string, at: string) =>
      r.driver.blockAction({
        userId,
        actionId,
        value: String(id),
        message: { channel: APPROVALS, ts: at },
      });
    await click('U0CAROL', ACTION.ask, ts);
    const askForm = await formOpened(r, VIEW.askQuestion, askBefore);
    await r.driver.viewSubmission({
      userId: 'U0CAROL',
      view: {
        id: askForm.id,
        state: { values: { question: { question: { type: 'plain_text_input', value: 'VAT?' } } } },
      },
    });
    const notice = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === ts && String(call.args.text).includes('VAT?'),
    );
    const downloads = r.slack.downloads.length;
    const editBefore = r.slack.callsTo('views.update').length;
    await click('U0ALICE', ACTION.resubmit, (notice.response as unknown as { ts: string }).ts);
    const editForm = await formOpened(r, VIEW.request, editBefore);
    expect(editForm.shown).toContain(`Left empty, the document of #${id} is kept.`);
    await r.driver.viewSubmission({
      userId: 'U0ALICE',
      view: {
        id: editForm.id,
        state: {
          values: requestFormValues({ ...PAYOUT, amount: '44.00', purpose: 'Invoice 2294' }),
        },
      },
    });
    const card = await r.slack.waitForCall(
      'chat.postMessage',
      (call) =>
        call.args.channel === APPROVALS && JSON.stringify(call.args).includes(`Replaces #${id}`),
    );
    expect(JSON.stringify(card.args)).toContain(sha256.slice(0, 12));
    const newId = Number(/^#(\d+) /.exec(String(card.args.text))?.[1]);
    expect((await r.bot.store.get(newId))?.document).toMatchObject({ fileId: file.id, sha256 });
    expect(r.slack.downloads).toHaveLength(downloads);
  });

  it('someone else’s file from another channel is refused with the reason; nothing is stored or read', async () => {
    const elsewhere = r.slack.uploadFileAs('U0BOB', {
      name: 'payroll.pdf',
      bytes: Buffer.from('not for alice'),
      channelId: 'C0GENERAL',
    });
    const downloads = r.slack.downloads.length;
    const { total } = await r.bot.store.listPending(100);
    const answer = await ask(
      r,
      payoutCommand({ ...PAYOUT, amount: '41.00', purpose: 'Invoice 2292', file: elsewhere.id }),
    );
    expect(answer.shown).toContain('Not requested, nothing stored');
    expect(answer.shown).toContain(
      'neither uploaded by you nor shared in the channel where you asked',
    );
    expect(r.slack.downloads).toHaveLength(downloads);
    expect((await r.bot.store.listPending(100)).total).toBe(total);
  });

  it('a file Slack does not have, and a value that is no file id, are refused', async () => {
    const missing = await ask(
      r,
      payoutCommand({ ...PAYOUT, amount: '42.00', purpose: 'Invoice 2293', file: 'F0NOSUCHFILE' }),
    );
    expect(missing.shown).toContain('was not found');
    const typo = await ask(
      r,
      payoutCommand({ ...PAYOUT, purpose: 'Invoice 2293', file: 'invoice.pdf' }),
    );
    expect(typo.shown).toContain('is not a Slack file id');
  });
});
