import { describe, expect, it } from 'vitest';
import { ConfigError, loadPaymentsToolConfig } from '../../src/config.ts';

const valid = {
  PAYMENTS_BASE_URL: 'https://api.example.com/v1',
  PAYMENTS_API_KEY: 'sk_live_abcdef123456',
  PAYMENTS_EXPECTED_CUSTOMER_ID: 'cus_123',
};

function problems(env: Record<string, string | undefined>): string[] {
  try {
    loadPaymentsToolConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('payments configuration', () => {
  it('applies the documented defaults to a minimal valid environment', () => {
    const config = loadPaymentsToolConfig(valid);
    expect(config.payments).toMatchObject({
      baseUrl: 'https://api.example.com/v1',
      expectedCustomerId: 'cus_123',
      expectedScopes: undefined,
      readTimeoutMs: 10_000,
      writeTimeoutMs: 30_000,
      maxInFlight: 16,
      readRetries: 2,
    });
    expect(config.logging.level).toBe('info');
    expect(Object.isFrozen(config.payments)).toBe(true);
  });

  it('reports every problem at once, in plain words, naming each variable', () => {
    const found = problems({
      PAYMENTS_BASE_URL: 'http://api.example.com/v2',
      PAYMENTS_API_KEY: undefined,
      PAYMENTS_EXPECTED_CUSTOMER_ID: '   ',
      PAYMENTS_EXPECTED_SCOPES: 'read,payments:wrte',
      PAYMENTS_TIMEOUT_MS: 'ten',
      LOG_LEVEL: 'loud',
    });
    expect(found).toEqual(
      expect.arrayContaining([
        'PAYMENTS_BASE_URL must end in /v1',
        'PAYMENTS_BASE_URL must use https:// (plain http:// is allowed only for a loopback sandbox)',
        'PAYMENTS_API_KEY is missing',
        'PAYMENTS_EXPECTED_CUSTOMER_ID is empty',
        'PAYMENTS_EXPECTED_SCOPES has unknown scope(s) payments:wrte; known scopes are read, resources:write, payments:write',
        'PAYMENTS_TIMEOUT_MS must be a whole number',
        'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
      ]),
    );
    expect(found).toHaveLength(7);
  });

  it('reports contradictory settings', () => {
    expect(
      problems({ ...valid, PAYMENTS_TIMEOUT_MS: '20000', PAYMENTS_WRITE_TIMEOUT_MS: '5000' }),
    ).toEqual(['PAYMENTS_WRITE_TIMEOUT_MS must not be shorter than PAYMENTS_TIMEOUT_MS']);
    expect(problems({ ...valid, PAYMENTS_EXPECTED_SCOPES: 'payments:write' })).toEqual([
      'PAYMENTS_EXPECTED_SCOPES must include read: every authenticated operation needs it',
    ]);
  });

  it('allows plain http only for loopback hosts', () => {
    for (const url of [
      'http://127.0.0.1:4010/v1',
      'http://localhost:4010/v1/',
      'http://[::1]:1/v1',
    ]) {
      expect(problems({ ...valid, PAYMENTS_BASE_URL: url })).toEqual([]);
    }
    expect(problems({ ...valid, PAYMENTS_BASE_URL: 'http://10.0.0.5/v1' })).toHaveLength(1);
  });

  it('never echoes a secret or a URL credential in its messages', () => {
    const key = 'sk_live_do not leak';
    const error = (() => {
      try {
        loadPaymentsToolConfig({
          ...valid,
          PAYMENTS_API_KEY: key,
          PAYMENTS_BASE_URL: 'https://user:hunter22@api.example.com/v1',
        });
      } catch (caught) {
        return caught as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error.problems).toEqual([
      'PAYMENTS_BASE_URL must not contain credentials',
      'PAYMENTS_API_KEY contains white space (a copy-paste slip?)',
    ]);
    expect(error.message).not.toContain('do not leak');
    expect(error.message).not.toContain('hunter22');
  });

  it('normalises expected scopes to the canonical order', () => {
    const config = loadPaymentsToolConfig({
      ...valid,
      PAYMENTS_EXPECTED_SCOPES: ' payments:write , read ',
    });
    expect(config.payments.expectedScopes).toEqual(['read', 'payments:write']);
  });
});
