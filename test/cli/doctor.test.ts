import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PaymentsSandbox,
  SANDBOX_BUSINESS,
  SANDBOX_KEY,
  SANDBOX_OTHER_BUSINESS,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';

const run = promisify(execFile);
let sandbox: PaymentsSandbox;

beforeAll(async () => {
  sandbox = await startPaymentsSandbox();
});
afterAll(() => sandbox.close());

/** Runs `payops doctor` as a user would: a separate process, configured by its environment. */
async function doctor(env: Record<string, string>, args: string[] = []) {
  const result = await run(
    process.execPath,
    ['--import', 'tsx', 'src/cli/payops.ts', 'doctor', ...args],
    {
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    },
  ).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: result.code, output: result.stdout + result.stderr };
}

function envFor(overrides: Record<string, string> = {}) {
  return {
    PAYMENTS_BASE_URL: sandbox.url,
    PAYMENTS_API_KEY: SANDBOX_KEY.full,
    PAYMENTS_EXPECTED_CUSTOMER_ID: SANDBOX_BUSINESS.id,
    ...overrides,
  };
}

describe('payops doctor', () => {
  it('passes against the sandbox and reports business, scopes and wallets', async () => {
    const { code, output } = await doctor(envFor());
    expect(code).toBe(0);
    expect(output).toMatch(/PASS\s+health\s+reachable.*reachability only/);
    expect(output).toContain(
      `PASS  me       business ${SANDBOX_BUSINESS.name} (${SANDBOX_BUSINESS.id})`,
    );
    expect(output).toContain('read, resources:write, payments:write');
    expect(output).toMatch(/PASS\s+wallets\s+\d+ wallet\(s\) listed/);
    expect(output).toContain('All first checks passed.');
  });

  it('with --sandbox needs no configuration at all', async () => {
    const { code, output } = await doctor({}, ['--sandbox']);
    expect(code).toBe(0);
    expect(output).toContain('All first checks passed.');
  });

  it('stops on a wrong business, without suggesting the other identifier as a fix', async () => {
    const { code, output } = await doctor(
      envFor({ PAYMENTS_EXPECTED_CUSTOMER_ID: SANDBOX_OTHER_BUSINESS.id }),
    );
    expect(code).toBe(1);
    expect(output).toContain('FAIL  me');
    expect(output).toContain(`not to the expected business ${SANDBOX_OTHER_BUSINESS.id}`);
    expect(output).toContain('STOP');
    expect(output).toContain("Never supply another business's identifier");
    expect(output).not.toMatch(/set PAYMENTS_EXPECTED_CUSTOMER_ID/i);
    expect(output).not.toContain('wallets');
  });

  it('stops when the key has other scopes than expected', async () => {
    const { code, output } = await doctor(
      envFor({
        PAYMENTS_API_KEY: SANDBOX_KEY.read,
        PAYMENTS_EXPECTED_SCOPES: 'read,payments:write',
      }),
    );
    expect(code).toBe(1);
    expect(output).toContain(
      "The key's scopes are read, but PAYMENTS_EXPECTED_SCOPES is read, payments:write.",
    );
    expect(output).toContain('STOP');
    expect(output).not.toContain("another business's identifier");
  });

  it.each([
    [SANDBOX_KEY.legacy, /legacy key under scope review/],
    [SANDBOX_KEY.revoked, /invalid or revoked/],
  ])('stops on key %s and never prints the key', async (apiKey, message) => {
    const { code, output } = await doctor(envFor({ PAYMENTS_API_KEY: apiKey, LOG_LEVEL: 'trace' }));
    expect(code).toBe(1);
    expect(output).toMatch(message);
    expect(output).toContain('STOP');
    expect(output).not.toContain(apiKey);
  });

  it('says to try again, not to stop, when the provider is unreachable', async () => {
    const { code, output } = await doctor(envFor({ PAYMENTS_BASE_URL: 'http://127.0.0.1:9/v1' }));
    expect(code).toBe(1);
    expect(output).toContain('FAIL  health');
    expect(output).not.toContain('STOP');
  });

  it('exits 2 listing every configuration problem', async () => {
    const { code, output } = await doctor({ PAYMENTS_BASE_URL: 'http://example.com/v2' });
    expect(code).toBe(2);
    expect(output).toContain('PAYMENTS_BASE_URL must end in /v1');
    expect(output).toContain('PAYMENTS_API_KEY is missing');
    expect(output).toContain('PAYMENTS_EXPECTED_CUSTOMER_ID is missing');
  });
});
