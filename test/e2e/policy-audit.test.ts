import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePolicy } from '../../src/domain/policy.ts';
import { policyVersion } from '../../src/domain/policy-version.ts';
import { type RestartableRehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import type { ApiCall } from '../../src/rehearsal/sandbox/slack.ts';
import { ANNOUNCEMENT_EVENT, CARD_EVENT } from '../../src/slack/outbox.ts';
import type { AuditEntry } from '../../src/store/request-store.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';
import { requestPayout } from '../helpers/slack.ts';

/**
 * The rules are themselves audited: every start records the policy's version in the audit chain
 * when it is not the last one recorded, and a change is announced in the approvals channel before
 * any request is served under it, once.
 */

const PAYOUT = EXAMPLE_CALLS.createPayout.body as Record<string, string>;
const folder = mkdtempSync(join(tmpdir(), 'payops-policy-audit-'));
const dataDir = join(folder, 'store');

function policyFile(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

const BEFORE = policyFile(
  'before.yaml',
  'rules:\n  - operations: [payout, transfer]\n    currency: [USD, USDC]\n    min_amount: "10000"\n    approvals: 2\n',
);
const AFTER = `expiry_hours: 48
rules:
  - operations: [payout, transfer]
    currency: [USD, USDC]
    min_amount: "5000"
    approvals: 2
  - operations: [create-wallet]
    approvals: 2
`;
/** AFTER again, written otherwise: comments, JSON-style flow, keys and rules in another order. */
const AFTER_REWRITTEN = `# the same rules, tidied
rules:
  - {approvals: 2, operations: [createWallet]}
  - {approvals: 2, min_amount: "5000.00", currency: [usdc, usd], operations: [transfer, payout]}
expiry_hours: 48
`;

let r: RestartableRehearsal;

beforeAll(async () => {
  r = await startRehearsal({
    env: { PAYOPS_DATA_DIR: dataDir, PAYOPS_POLICY_FILE: BEFORE },
    slack: { rateLimits: 'off' },
  });
});
afterAll(async () => {
  await r?.close();
  rmSync(folder, { recursive: true, force: true });
});

function metadataOf(call: ApiCall): string | undefined {
  return (call.args.metadata as { event_type?: string } | undefined)?.event_type;
}

const announcements = () =>
  r.slack.callsTo('chat.postMessage').filter((call) => metadataOf(call) === ANNOUNCEMENT_EVENT);

async function policyRows(): Promise<AuditEntry[]> {
  const rows: AuditEntry[] = [];
  for await (const page of r.bot.store.auditLog()) rows.push(...page);
  return rows.filter((row) => row.event === 'policy_loaded');
}

describe('the approval policy across restarts on one store', () => {
  it('the first start records the policy, and announces nothing', async () => {
    const rows = await policyRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      requestId: undefined,
      actor: 'payops',
      detail: { version: policyVersion(parsePolicy(readFileSync(BEFORE, 'utf8'), BEFORE)) },
    });
    expect(announcements()).toEqual([]);
  });

  it('a policy change between two starts: one announcement, one audit row, before any request is served', async () => {
    await r.restart({ PAYOPS_POLICY_FILE: policyFile('after.yaml', AFTER) });
    const announced = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => metadataOf(call) === ANNOUNCEMENT_EVENT,
    );
    expect(announced.args.channel).toBe('C0APPROVALS');
    const shown = JSON.stringify(announced.args.blocks);
    expect(shown).toContain('The approval rules changed');
    expect(shown).toContain(
      '• *Changed:* A payout or transfer request in USD or USDC: of 10000 or more → of 5000 or more.',
    );
    expect(shown).toContain('• *Added:* A create-wallet request needs 2 approvals.');
    expect(shown).toContain('Time a request may wait for approval: 24 hours → 48 hours.');

    const rows = await policyRows();
    expect(rows).toHaveLength(2);
    const version = policyVersion(parsePolicy(AFTER, 'after.yaml'));
    expect(rows[1]?.detail).toMatchObject({
      version,
      previous_version: rows[0]?.detail?.version,
    });
    expect(shown).toContain(version);

    // A request made right after the start is carded after the announcement.
    await requestPayout(r, PAYOUT);
    const posts = r.slack.callsTo('chat.postMessage');
    const card = posts.findIndex((call) => metadataOf(call) === CARD_EVENT);
    expect(card).toBeGreaterThan(posts.indexOf(announced));
    expect(announcements()).toHaveLength(1);
  });

  it('the same policy written otherwise on the next start: no announcement, no new row', async () => {
    await r.restart({ PAYOPS_POLICY_FILE: policyFile('rewritten.yaml', AFTER_REWRITTEN) });
    await requestPayout(r, { ...PAYOUT, amount: '12.00' });
    expect(await policyRows()).toHaveLength(2);
    expect(announcements()).toHaveLength(1);
  });
});
