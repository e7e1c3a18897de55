import { afterAll, beforeAll } from 'vitest';
import type { OperationId, WriteOperationId } from '../../src/domain/operations.ts';
import { createLogger, type Logger } from '../../src/logger.ts';
import { PaymentsClient, type PaymentsClientOptions } from '../../src/payments/client.ts';
import {
  type PaymentsSandbox,
  SANDBOX_IDS,
  SANDBOX_KEY,
  type SandboxOptions,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';

const { wallet, recipient, corridor, depositAccount } = SANDBOX_IDS;

/** A valid call of every operation against the seeded sandbox business. */
export const EXAMPLE_CALLS: Record<
  OperationId,
  {
    path?: Record<string, string>;
    query?: Record<string, string | boolean>;
    body?: Record<string, string>;
  }
> = {
  health: {},
  getMe: {},
  listWallets: { query: { sync: true } },
  getWalletBalance: { path: { walletId: wallet.ethereumOps } },
  getWalletHistory: { path: { walletId: wallet.ethereumOps } },
  createWallet: { body: { chain: 'base' } },
  listDepositAccounts: {},
  createDepositAccount: {
    body: {
      source_currency: 'USD',
      destination_currency: 'USDC',
      destination_payment_rail: 'ethereum',
      destination_address: `0x${'ab'.repeat(20)}`,
    },
  },
  deactivateDepositAccount: { path: { virtualAccountId: depositAccount.activeUsd } },
  reactivateDepositAccount: { path: { virtualAccountId: depositAccount.inactiveEur } },
  listRecipients: {},
  getRecipient: { path: { externalAccountId: recipient.usSupplier } },
  createRecipient: {
    body: {
      corridor_id: corridor.usdAch,
      account_owner_name: 'Jane Roe',
      bank_name: 'First Test Bank',
      account_number: '000123456789',
      routing_number: '021000021',
      street_line_1: '1 Main St',
      city: 'Springfield',
      state: 'IL',
      postal_code: '62701',
      country: 'US',
    },
  },
  updateRecipient: {
    path: { externalAccountId: recipient.mxContractor },
    body: { account_owner_name: 'Ana López Ruiz' },
  },
  deactivateRecipient: { path: { externalAccountId: recipient.deAgency } },
  reactivateRecipient: { path: { externalAccountId: recipient.brInactive } },
  listDeposits: {},
  listTransfers: { query: { limit: '5' } },
  createTransfer: {
    body: {
      wallet_id: wallet.ethereumOps,
      external_account_id: recipient.usSupplier,
      amount: '10.00',
      source_currency: 'USDC',
      corridor_id: corridor.usdAch,
    },
  },
  createCryptoTransfer: {
    body: {
      wallet_id: wallet.ethereumOps,
      amount: '5.00',
      source_currency: 'USDC',
      destination_currency: 'USDC',
      destination_payment_rail: 'ethereum',
      destination_address: `0x${'cd'.repeat(20)}`,
    },
  },
  createPaymentRoute: {
    body: {
      wallet_id: wallet.ethereumOps,
      source_currency: 'USDC',
      destination_payment_rail: 'polygon',
      destination_currency: 'USDC',
      destination_address: `0x${'ef'.repeat(20)}`,
    },
  },
  createOfframpRoute: {
    body: {
      wallet_id: wallet.ethereumOps,
      corridor_id: corridor.usdAch,
      external_account_id: recipient.usSupplier,
      source_currency: 'USDC',
    },
  },
  listPayouts: {},
  createPayout: {
    body: {
      wallet_id: wallet.ethereumOps,
      amount: '25.50',
      currency: 'USDC',
      beneficiary_name: 'Jane Roe',
      beneficiary_account: '000123456789',
      beneficiary_routing: '021000021',
      destination_type: 'ach',
    },
  },
  getFxLatest: {},
  getFxRate: { query: { from: 'USD', to: 'EUR', amount: '100' } },
  listCorridors: {},
};

export const PAYOUT: WriteOperationId = 'createPayout';

/** Every line a logger writes, for assertions. */
export function captureLogger(
  level = 'trace',
  secrets: string[] = [],
): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger({
    level,
    secrets,
    destination: { write: (line) => lines.push(line) },
  });
  return { logger, lines };
}

export function clientFor(
  baseUrl: string,
  overrides: Partial<PaymentsClientOptions> = {},
): PaymentsClient {
  return new PaymentsClient({
    baseUrl,
    apiKey: SANDBOX_KEY.full,
    readTimeoutMs: 2_000,
    writeTimeoutMs: 2_000,
    maxInFlight: 8,
    readRetries: 2,
    logger: captureLogger('silent').logger,
    random: () => 0,
    ...overrides,
  });
}

/** `payout name="value" …`: the text after `/pay` that requests a payout of these fields. */
export function payoutCommand(fields: Readonly<Record<string, string>>): string {
  return `payout ${Object.entries(fields)
    .map(([name, value]) => `${name}="${value}"`)
    .join(' ')}`;
}

/**
 * A Payments sandbox and a client of it for a whole test file: started before its tests, closed
 * after them. Read `sandbox` and `client` from the returned object inside tests and hooks.
 * `sandboxOptions.profile` makes the sandbox play another provider (provider-profiles.ts).
 */
export function sandboxAndClient(
  overrides: Partial<PaymentsClientOptions> = {},
  sandboxOptions: SandboxOptions = {},
): {
  sandbox: PaymentsSandbox;
  client: PaymentsClient;
} {
  const started = {} as { sandbox: PaymentsSandbox; client: PaymentsClient };
  beforeAll(async () => {
    started.sandbox = await startPaymentsSandbox(sandboxOptions);
    started.client = clientFor(started.sandbox.url, overrides);
  });
  afterAll(async () => {
    await started.client?.close();
    await started.sandbox?.close();
  });
  return started;
}
