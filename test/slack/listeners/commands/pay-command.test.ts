import { describe, expect, it } from 'vitest';
import { answered, commandOnFakes, modalText, referenceIn } from '../../../helpers/listeners.ts';

/** A payout typed whole, fields as a requester writes them. */
const PAYOUT =
  'payout wallet_id=wal_1 amount=250.00 currency=USDC beneficiary_name="Jane Roe" beneficiary_account=000123456789 beneficiary_routing=021000021 destination_type=ach';

describe('payCommand', () => {
  it('acks at once with an empty body, then answers the person alone through the command’s response_url', async () => {
    const { run } = commandOnFakes();
    const bolt = await run('U0ERIN', 'balanse');
    expect(bolt.said).toEqual(['ack', 'respond']);
    expect(bolt.acks).toEqual([undefined]);
    expect(answered(bolt)).toContain(
      '`/payments balanse` is not a payops command. Did you mean `/payments balance`?',
    );
  });

  it('answers only where it is set up to, and runs nothing elsewhere', async () => {
    const { run, payments } = commandOnFakes({ channels: ['C0PAYOPS'] });
    const bolt = await run('U0ERIN', 'balance wal_1', 'C0ELSEWHERE');
    expect(answered(bolt)).toContain(
      'payops does not answer in this conversation. Please run the command in <#C0PAYOPS>.',
    );
    expect(payments.calls).toEqual([]);
  });

  it('tells someone with no role the plain refusal, naming nobody, whatever they typed', async () => {
    const { run, store, payments } = commandOnFakes();
    const refusal =
      'Sorry, you are not on the list of people who may use payops, so nothing was run. To get access, ask <@U0ADMIN>.';
    for (const text of ['balance wal_1', PAYOUT, 'freeze drill', 'help']) {
      const bolt = await run('U0DAVE', text);
      expect(bolt.responses[0]?.text).toBe(refusal);
    }
    expect(store.requests.size).toBe(0);
    expect(payments.calls).toEqual([]);
  });

  it('refuses a reader a write, naming who may request, and stores nothing', async () => {
    const { run, store } = commandOnFakes();
    const bolt = await run('U0ERIN', PAYOUT);
    expect(answered(bolt)).toContain(
      'Sorry, you may not request payments or other writes, so nothing was requested.',
    );
    expect(store.requests.size).toBe(0);
  });

  it('stores a write typed whole as a request, answering nothing itself: its confirmation goes through the outbox', async () => {
    const { run, store, payments } = commandOnFakes();
    const bolt = await run('U0BOB', PAYOUT);
    expect(bolt.said).toEqual(['ack']);
    const [request] = [...store.requests.values()];
    expect(request).toMatchObject({ operationId: 'createPayout', requesterId: 'U0BOB' });
    expect(store.deliveries.of(request?.id ?? 0)).toEqual(['created']);
    expect(payments.count('createPayout')).toBe(0);
  });

  it('lists a mistyped write’s mistakes, naming each field, and stores nothing', async () => {
    const { run, store } = commandOnFakes();
    const bolt = await run('U0BOB', PAYOUT.replace('amount=250.00', 'amount=lots'));
    expect(answered(bolt)).toContain('The request was not created, and nothing was stored:');
    expect(bolt.responses[0]?.text).toContain('amount');
    expect(store.requests.size).toBe(0);
  });

  it('opens a write’s form when no field was typed: "one moment" first, then the form asked from this channel', async () => {
    const { run, payments } = commandOnFakes();
    payments
      .answer('listWallets', () => ({ data: [{ id: 'wal_1', name: 'Treasury' }] }))
      .answer('listRecipients', () => ({ data: [] }))
      .answer('listCorridors', () => ({ data: [] }));
    const bolt = await run('U0BOB', 'payout');
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    expect(bolt.views[0]?.args).toMatchObject({ trigger_id: 'T0TRIGGER' });
    const form = bolt.views[1]?.args.view as { callback_id: string; private_metadata: string };
    expect(form.callback_id).toBe('payops.request');
    expect(JSON.parse(form.private_metadata)).toEqual({
      operationId: 'createPayout',
      path: {},
      channelId: 'C0PAYOPS',
    });
    expect(JSON.stringify(form)).toContain('Treasury (wal_1)');
  });

  it('shows someone who may not request their refusal in the form, without asking the provider for choices', async () => {
    const { run, payments } = commandOnFakes();
    const bolt = await run('U0CAROL', 'payout');
    expect(bolt.said).toEqual(['ack', 'views.open', 'views.update']);
    expect(modalText(bolt)).toContain('you may not request payments or other writes');
    expect(payments.calls).toEqual([]);
  });

  it('tells a reader Slack could not confirm their group, when the directory fails', async () => {
    const { run, directory, payments } = commandOnFakes();
    directory.unavailable = true;
    const bolt = await run('U0FRANK', 'balance wal_1');
    expect(answered(bolt)).toContain(
      'payops could not check your user-group membership with Slack just now, so it did not run the command.',
    );
    expect(payments.calls).toEqual([]);
  });

  it('lets a member of the readers’ group read', async () => {
    const { run, directory, payments } = commandOnFakes();
    directory.groups.set('S0READERS', ['U0FRANK']);
    payments.answer('getWalletBalance', () => ({ balances: { USDC: '12.50' } }));
    const bolt = await run('U0FRANK', 'balance wal_1');
    expect(answered(bolt)).toContain('12.50');
    expect(payments.count('getWalletBalance')).toBe(1);
  });

  it('gives the person a reference, also in the log with who asked, when answering fails inside payops', async () => {
    const { run, payments, approvals } = commandOnFakes();
    payments.answer('getWalletBalance', () => {
      throw new Error('a bug in payops');
    });
    const bolt = await run('U0ERIN', 'balance wal_1');
    expect(bolt.said).toEqual(['ack', 'respond']);
    const text = bolt.responses[0]?.text;
    expect(text).toMatch(/^Something failed inside payops, so your command got no answer/);
    expect(referenceIn(text, approvals.lines).logged).toBe(true);
    expect(approvals.lines.join('')).toContain('"userId":"U0ERIN"');
  });
});
