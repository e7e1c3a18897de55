import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Rehearsal, startRehearsal } from '../../src/rehearsal/rehearsal.ts';
import { SANDBOX_KEY } from '../../src/rehearsal/sandbox/payments-api.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { ask } from '../helpers/slack.ts';

const ACCOUNT = '000123456789';
const ROUTING = '021000021';
const lines: string[] = [];
let r: Rehearsal;

beforeAll(async () => {
  r = await startRehearsal({
    env: { LOG_LEVEL: 'trace' },
    logDestination: { write: (line: string) => lines.push(line) },
  });
});
afterAll(() => r.close());

describe('logs at trace level, Bolt debug output included', () => {
  it('never carry the API key, a Slack token or secret, a payops key, or an account number', async () => {
    await ask(r, 'wallets');
    await ask(
      r,
      `payout wallet_id=wal_acme_eth_ops amount=1.00 currency=USDC beneficiary_name="Jane Roe" beneficiary_account=${ACCOUNT} beneficiary_routing=${ROUTING} destination_type=ach`,
    );
    const card = await r.slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === 'C0APPROVALS',
    );
    await r.driver.blockAction({
      userId: 'U0BOB',
      actionId: ACTION.approve,
      message: { channel: 'C0APPROVALS', ts: (card.response as unknown as { ts: string }).ts },
    });
    await r.slack.waitForCall('chat.update', (call) => /submitted/.test(String(call.args.text)));

    const text = lines.join('');
    // Debug and trace output really was written — Web API request bodies and headers, the
    // provider's request bodies — so the absences below mean something. (Bolt logs raw
    // request bodies only in developer mode, which payops never turns on.)
    expect(text).toContain('http request body');
    expect(text).toContain('http request headers');
    expect(text).toContain('payments request body');
    expect(text).toContain('••••6789');
    for (const secret of [
      SANDBOX_KEY.full,
      r.slack.config.botToken,
      r.slack.config.signingSecret,
      r.env.PAYOPS_SIGNING_KEY as string,
      (r.env.PAYOPS_ENCRYPTION_KEY as string).replace(/^k1:/, ''),
      ACCOUNT,
      ROUTING,
      'Jane Roe',
    ]) {
      expect(text).not.toContain(secret);
    }
  });
});
