import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { generateKeyEnv } from '../../src/config.ts';

/**
 * The `payops` command line from the sources, as `npm run <command>` runs it in development, and
 * `npm start`'s entry: what a person sees on the terminal. The build is tested in
 * test/e2e/process.test.ts.
 */

const run = promisify(execFile);

async function node(args: string[], env: Record<string, string> = {}) {
  const result = await run(process.execPath, ['--import', 'tsx', ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: result.code, stdout: result.stdout, stderr: result.stderr };
}

const payops = (args: string[]) => node(['src/cli/payops.ts', ...args]);

describe('payops', () => {
  it('--help lists its commands', async () => {
    const { code, stdout } = await payops(['--help']);
    expect(code).toBe(0);
    for (const command of ['start', 'doctor', 'sandbox', 'demo']) {
      expect(stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    }
  });

  it('refuses no command, an unknown one and an unknown argument, with the usage (exit 2)', async () => {
    const none = await payops([]);
    expect(none).toMatchObject({ code: 2, stdout: '' });
    expect(none.stderr).toContain('Usage: payops <command>');
    const unknown = await payops(['deploy']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('payops: there is no command deploy.');
    const argument = await payops(['doctor', '--sandbx']);
    expect(argument.code).toBe(2);
    expect(argument.stderr).toContain('payops doctor: unknown argument --sandbx.');
    expect(argument.stderr).toContain('Usage: payops doctor [--sandbox]');
  });
});

describe('npm start with a malformed DATABASE_URL', () => {
  it('exits 2 saying what is wrong, and never prints the password', async () => {
    const password = 'Tr0ub4dor#3/horse';
    const { code, stdout, stderr } = await node(['src/main.ts'], {
      PAYMENTS_BASE_URL: 'https://api.example.com/v1',
      PAYMENTS_API_KEY: 'sk_live_abcdef123456',
      PAYMENTS_EXPECTED_CUSTOMER_ID: 'cus_123',
      SLACK_BOT_TOKEN: 'xoxb-test-token',
      SLACK_SIGNING_SECRET: 'signing-secret-test',
      PAYOPS_READERS: 'U0ALICE',
      PAYOPS_REQUESTERS: 'U0ALICE',
      PAYOPS_APPROVERS: 'U0BOB',
      PAYOPS_APPROVALS_CHANNEL: 'C0APPROVALS',
      ...generateKeyEnv(),
      DATABASE_URL: `postgres://payops:${password}@db.internal:5432/payops`,
    });
    expect(code).toBe(2);
    expect(stderr).toContain('DATABASE_URL is not a valid URL: percent-encode');
    for (const part of ['Tr0ub4dor', 'horse']) expect(stdout + stderr).not.toContain(part);
  });
});
