import { describe, expect, it } from 'vitest';
import { ReadService } from '../../src/app/reads.ts';
import { SANDBOX_IDS } from '../../src/rehearsal/sandbox/payments-api.ts';
import { sandboxAndClient } from '../helpers/payments.ts';

const { wallet, recipient, corridor } = SANDBOX_IDS;
const payments = sandboxAndClient({ readRetries: 0 });

describe('the choices of a request form', () => {
  it('offers wallets, corridors and the active recipients, by id with their names', async () => {
    const choices = await new ReadService(payments.client, ['read']).formChoices();
    const ids = (list: Array<{ id: string }>) => list.map((choice) => choice.id);
    expect(choices.wallets).toContainEqual({ id: wallet.ethereumOps, name: expect.any(String) });
    expect(ids(choices.corridors)).toContain(corridor.usdAch);
    expect(ids(choices.recipients)).toContain(recipient.usSupplier);
    expect(ids(choices.recipients)).not.toContain(recipient.brInactive);
  });

  it('offers nothing from a list the key may not read', async () => {
    expect(await new ReadService(payments.client, []).formChoices()).toEqual({
      wallets: [],
      recipients: [],
      corridors: [],
    });
  });
});
