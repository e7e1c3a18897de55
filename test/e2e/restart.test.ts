import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBot, StartupRefused, startBot } from '../../src/bot.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { rehearsalEnv } from '../../src/rehearsal/rehearsal.ts';
import {
  type PaymentsSandbox,
  SANDBOX_OTHER_BUSINESS,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';
import { SlackIdentityError } from '../../src/slack/directory.ts';
import { ACTION } from '../../src/slack/interaction-ids.ts';
import { EXAMPLE_CALLS } from '../helpers/payments.ts';

let sandbox: PaymentsSandbox;
let slack: SlackEmulation;
const dataDir = mkdtempSync(join(tmpdir(), 'payops-restart-'));
const logger = createLogger({ level: 'silent', secrets: [] });

function bot(env: Record<string, string> = {}): Promise<RunningBot> {
  return startBot(
    loadConfig({ ...rehearsalEnv(sandbox, slack), PAYOPS_DATA_DIR: dataDir, ...env }),
    logger,
  );
}

beforeAll(async () => {
  [sandbox, slack] = await Promise.all([startPaymentsSandbox(), startSlackEmulation()]);
});
afterAll(async () => {
  await Promise.all([sandbox.close(), slack.close()]);
  rmSync(dataDir, { recursive: true, force: true });
});

describe('a bot restarted on the same embedded store', () => {
  it("keeps the requests, and an approval message's button from before the restart still works", async () => {
    const first = await bot();
    const fields = Object.entries(EXAMPLE_CALLS.createPayout.body ?? {})
      .map(([name, value]) => (/\s/.test(value) ? `${name}="${value}"` : `${name}=${value}`))
      .join(' ');
    const sent = await slack
      .driver(`http://127.0.0.1:${first.port}/slack/events`)
      .slashCommand({ text: `payout ${fields}`, userId: 'U0ALICE', channelId: 'C0PAYOPS' });
    await slack.nextResponse(sent.responseUrlId);
    const card = await slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.channel === 'C0APPROVALS',
    );
    await first.stop();

    const second = await bot();
    try {
      await slack.driver(`http://127.0.0.1:${second.port}/slack/events`).blockAction({
        userId: 'U0BOB',
        actionId: ACTION.approve,
        message: { channel: 'C0APPROVALS', ts: (card.response as unknown as { ts: string }).ts },
      });
      await slack.waitForCall('chat.update', (call) => /submitted/.test(String(call.args.text)));
      expect(sandbox.requests.filter((entry) => entry.operationId === 'createPayout')).toHaveLength(
        1,
      );
    } finally {
      await second.stop();
    }
  });

  it('refuses to start when the key belongs to another business than expected', async () => {
    const refused = await bot({ PAYMENTS_EXPECTED_CUSTOMER_ID: SANDBOX_OTHER_BUSINESS.id }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(StartupRefused);
    expect((refused as Error).message).toContain(
      `not to the expected business ${SANDBOX_OTHER_BUSINESS.id}`,
    );
    expect((refused as Error).message).toContain('Stop');
  });

  it('refuses to start when Slack cannot be reached, naming auth.test and what to check, before creating the data folder', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const folder = join(dataDir, 'never-created');

    const refused = await bot({
      SLACK_API_URL: `http://127.0.0.1:${port}/api/`,
      PAYOPS_DATA_DIR: folder,
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SlackIdentityError);
    const message = (refused as Error).message;
    expect(message).toContain("Slack's auth.test call");
    expect(message).toContain('ECONNREFUSED');
    expect(message).toContain('SLACK_BOT_TOKEN');
    expect(message).toContain('SLACK_API_URL');
    expect(existsSync(folder)).toBe(false);
  });
});
