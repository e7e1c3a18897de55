import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadService } from '../../src/app/reads.ts';
import type { PaymentsClient } from '../../src/payments/client.ts';
import {
  type PaymentsSandbox,
  SANDBOX_IDS,
  startPaymentsSandbox,
} from '../../src/sandbox/payments-api.ts';
import { clientFor } from '../helpers/payments.ts';

const { wallet, recipient, corridor } = SANDBOX_IDS;
let sandbox: PaymentsSandbox;
let client: PaymentsClient;
beforeAll(async () => {
  sandbox = await startPaymentsSandbox();
  client = clientFor(sandbox.url, { readRetries: 0 });
});
afterAll(async () => {
  await client.close();
  await sandbox.close();
});

describe('the choices of a request form', () => {
  it('offers wallets, corridors and the active recipients, by id with their names', async () => {
    const choices = await new ReadService(client, ['read']).formChoices();
    const ids = (list: Array<{ id: string }>) => list.map((choice) => choice.id);
    expect(choices.wallets).toContainEqual({ id: wallet.ethereumOps, name: expect.any(String) });
    expect(ids(choices.corridors)).toContain(corridor.usdAch);
    expect(ids(choices.recipients)).toContain(recipient.usSupplier);
    expect(ids(choices.recipients)).not.toContain(recipient.brInactive);
  });

  it('offers nothing from a list the key may not read', async () => {
    expect(await new ReadService(client, []).formChoices()).toEqual({
      wallets: [],
      recipients: [],
      corridors: [],
    });
  });
});
