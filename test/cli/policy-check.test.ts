import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/domain/policy.ts';
import { policyVersion } from '../../src/domain/policy-version.ts';

/** `payops policy check FILE`, run from the sources as an operator would. */

const run = promisify(execFile);
const folder = mkdtempSync(join(tmpdir(), 'payops-policy-check-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

async function payops(...args: string[]) {
  const result = await run(process.execPath, ['--import', 'tsx', 'src/cli/payops.ts', ...args], {
    env: { PATH: process.env.PATH ?? '' },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: result.code, stdout: result.stdout, stderr: result.stderr };
}

function file(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

const VALID = `default_approvals: 1
expiry_hours: 24
rules:
  - operations: [payout, transfer]
    currency: [USD, USDC]
    min_amount: "10000"
    window: 24h
    approvals: 2
`;

describe('payops policy check', () => {
  it('says what a valid file means in plain words, and its version (exit 0)', async () => {
    const path = file('valid.yaml', VALID);
    const { code, stdout, stderr } = await payops('policy', 'check', path);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toBe(
      [
        `${path} is a valid policy. What it means:`,
        '',
        'Every write needs 1 approval from distinct approvers (PAYOPS_APPROVERS), never from its requester, unless a rule asks more.',
        'A request not approved within 24 hours expires.',
        'A request needs the most approvals of the default and of every rule that matches it:',
        "  - A payout or transfer request in USD or USDC of 10000 or more needs 2 approvals, adding up the same requester's requests to one payee within 1 day.",
        '',
        `Policy version (SHA-256 of its canonical form): ${policyVersion(parsePolicy(VALID, path))}`,
        '',
      ].join('\n'),
    );
  });

  it('lists every problem of an invalid file (exit 2)', async () => {
    const path = file(
      'invalid.yaml',
      'rules:\n  - operations: [payuot]\n    currency: USD\n    min_amount: 10000\n    approvals: 2\n',
    );
    const { code, stdout } = await payops('policy', 'check', path);
    expect(code).toBe(2);
    expect(stdout).toContain(`Policy file ${path} is invalid:`);
    expect(stdout).toContain('rules[0].operations[0]: `payuot` is not a write operation');
    expect(stdout).toContain('rules[0].min_amount: must be quoted');
  });

  it('refuses a missing file (exit 3), and no file or a second one with its usage (exit 2)', async () => {
    const missing = await payops('policy', 'check', join(folder, 'nowhere.yaml'));
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('nowhere.yaml cannot be read (ENOENT)');

    const none = await payops('policy', 'check');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: payops policy check FILE');

    const two = await payops('policy', 'check', 'a.yaml', 'b.yaml');
    expect(two.code).toBe(2);
    expect(two.stderr).toContain('payops policy: unknown argument b.yaml.');
  });
});
