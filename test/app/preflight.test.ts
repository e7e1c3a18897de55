import { describe, expect, it } from 'vitest';
import { preflight } from '../../src/app/preflight.ts';
import type { CheckName, PreflightCheck } from '../../src/domain/approval.ts';
import { SANDBOX_IDS } from '../../src/rehearsal/sandbox/payments-api.ts';
import { findingText } from '../../src/slack/text/preflight.ts';
import { sandboxAndClient } from '../helpers/payments.ts';

/**
 * Each pre-flight check against the sandbox over HTTP: passed, failed, certain, or not checked,
 * its finding in the words the card shows (src/slack/text/preflight.ts).
 */

const { wallet, recipient, corridor } = SANDBOX_IDS;
const payments = sandboxAndClient({ readRetries: 0 });

/** The check `name` of `checks`, its finding worded. */
function worded(checks: PreflightCheck[], name: CheckName) {
  const check = checks.find((each) => each.name === name);
  return check && { ...check, detail: findingText(check.finding) };
}

function transfer(fields: Record<string, string>) {
  return preflight(payments.client, {
    operationId: 'createTransfer',
    path: {},
    fields: {
      wallet_id: wallet.ethereumOps,
      external_account_id: recipient.usSupplier,
      amount: '10.00',
      source_currency: 'USDC',
      corridor_id: corridor.usdAch,
      ...fields,
    },
  });
}

describe('pre-flight checks', () => {
  it('a transfer that is fine passes every check', async () => {
    const checks = await transfer({});
    expect(checks.map((check) => [check.name, check.outcome])).toEqual([
      ['wallet', 'passed'],
      ['balance', 'passed'],
      ['recipient', 'passed'],
      ['corridor', 'passed'],
    ]);
  });

  it('a recipient the provider does not have is certain; an inactive one is a warning', async () => {
    const missing = await transfer({ external_account_id: 'ea_nobody' });
    expect(missing.find((check) => check.name === 'recipient')).toMatchObject({
      outcome: 'failed',
      certain: true,
    });
    const inactive = await transfer({ external_account_id: recipient.brInactive });
    const check = worded(inactive, 'recipient');
    expect(check?.outcome).toBe('failed');
    expect(check?.certain).toBeUndefined();
    expect(check?.detail).toMatch(/not active/);
  });

  it('a currency the wallet does not list is not compared: it may be paid by conversion', async () => {
    const checks = await transfer({ source_currency: 'EURC' });
    expect(worded(checks, 'balance')).toEqual({
      name: 'balance',
      outcome: 'unchecked',
      finding: expect.objectContaining({ code: 'other_currencies' }),
      detail:
        'the wallet holds 1,250.50 USDC, 310.00 USDT; the transfer is in EURC: payops cannot compare them',
    });
  });

  it('a currency written in another case is not the one the balance lists: not passed', async () => {
    const checks = await transfer({ source_currency: 'usdc' });
    expect(worded(checks, 'balance')).toMatchObject({
      outcome: 'unchecked',
      detail: expect.stringContaining(
        'is in USDC; the transfer says usdc, which is not the same text',
      ),
    });
  });

  it('only less of the same currency fails the balance check', async () => {
    const checks = await transfer({ amount: '99999999.00' });
    expect(worded(checks, 'balance')).toMatchObject({
      outcome: 'failed',
      detail: expect.stringMatching(/USDC available, less than the 99999999.00 requested$/),
    });
  });

  it('a corridor missing from the whole corridor list is a warning', async () => {
    const checks = await transfer({ corridor_id: 'cor_nowhere' });
    expect(worded(checks, 'corridor')).toMatchObject({
      outcome: 'failed',
      detail: "cor_nowhere is not among the provider's corridors",
    });
  });

  it('a rail the corridor does not list is a warning', async () => {
    const checks = await transfer({ destination_payment_rail: 'swift' });
    expect(worded(checks, 'rail')).toMatchObject({
      outcome: 'failed',
      detail: expect.stringMatching(/lists ach, not swift/),
    });
  });

  it('a provider that cannot answer leaves a check unchecked, with why, never passed', async () => {
    payments.sandbox.addFault({ kind: 'status', status: 503, operationId: 'getWalletBalance' });
    try {
      const checks = await transfer({});
      expect(checks.find((check) => check.name === 'wallet')?.outcome).toBe('unchecked');
      expect(worded(checks, 'balance')).toMatchObject({
        outcome: 'unchecked',
        // The provider's error is kept as its facts, and worded as any of its errors is.
        finding: { code: 'read_failed', error: { code: 'payments.server_error', status: 503 } },
        detail: expect.stringMatching(
          /^could not read the wallet's balance: The Payments API failed with an internal error \(503\)/,
        ),
      });
    } finally {
      payments.sandbox.clearFaults();
    }
  });
});
