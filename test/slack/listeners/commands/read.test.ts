import { describe, expect, it } from 'vitest';
import { ServerError } from '../../../../src/payments/errors.ts';
import { fakeBolt } from '../../../fakes/bolt.ts';
import { answered, commandOnFakes } from '../../../helpers/listeners.ts';

/** Reads, typed by U0ERIN, who may read and nothing else. */
describe('payCommand: reads', () => {
  it('acks before asking the provider for one wallet’s balance, then shows it to the reader alone', async () => {
    const { run, payments } = commandOnFakes();
    const bolt = fakeBolt();
    payments.answer('getWalletBalance', () => {
      bolt.said.push('getWalletBalance');
      return { balances: { USDC: '1234.56' } };
    });
    await run('U0ERIN', 'balance wal_1', undefined, bolt);
    expect(bolt.said).toEqual(['ack', 'getWalletBalance', 'respond']);
    expect(answered(bolt)).toContain('"text":"Read a wallet balance: 1,234.56 USDC"');
    expect(payments.calls).toEqual([
      { operationId: 'getWalletBalance', input: { path: { walletId: 'wal_1' }, query: {} } },
    ]);
  });

  it('reads every wallet’s balance for a bare `balance`', async () => {
    const { run, payments } = commandOnFakes();
    payments
      .answer('listWallets', () => ({ data: [{ id: 'wal_1' }, { id: 'wal_2' }] }))
      .answer('getWalletBalance', (input) => ({
        balances: { USDC: input.path?.walletId === 'wal_1' ? '10.00' : '20.00' },
      }));
    const bolt = await run('U0ERIN', 'balance');
    const shown = answered(bolt);
    expect(shown).toContain('wal_1');
    expect(shown).toContain('20.00');
    expect(payments.count('getWalletBalance')).toBe(2);
  });

  it('names the scope the key lacks, without calling the provider', async () => {
    const { run, payments } = commandOnFakes();
    const bolt = await run('U0ERIN', 'wallets --sync');
    expect(bolt.responses[0]?.text).toBe(
      "*List wallets* needs the API key scope `resources:write`, which payops' key does not have, so payops did not call the Payments API. An administrator must grant it to the key.",
    );
    expect(payments.calls).toEqual([]);
  });

  it('shows the provider’s failure with the details support asks for', async () => {
    const { run, payments } = commandOnFakes();
    payments.answer('getWalletBalance', () => {
      throw new ServerError('server error', {
        operationId: 'getWalletBalance',
        status: 503,
        requestId: 'req_42',
      });
    });
    const bolt = await run('U0ERIN', 'balance wal_1');
    const shown = answered(bolt);
    expect(shown).toContain('error `payments.server_error` · HTTP 503 · request id `req_42`');
  });

  it('explains a read it cannot parse and points to help, calling nothing', async () => {
    const { run, payments } = commandOnFakes();
    const bolt = await run('U0ERIN', 'history');
    expect(bolt.responses[0]?.text).toMatch(/\nType `\/payments help` to see the commands\.$/);
    expect(payments.calls).toEqual([]);
  });
});
