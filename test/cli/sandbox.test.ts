import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { sendSlackRequest } from '../../src/sandbox/slack.ts';
import { cleanUpPayops, startPayops } from '../helpers/bot-process.ts';

/**
 * `payops sandbox` (`npm run sandbox`): the Payments sandbox and an emulated Slack, and an
 * environment that, pasted into a shell, is all `npm run dev` needs.
 */

afterEach(async (context) => {
  await cleanUpPayops(context.task.result?.state === 'fail');
});

describe('payops sandbox', () => {
  it('prints a complete environment: with it alone payops starts and answers signed Slack requests', {
    timeout: 60_000,
  }, async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/payops.ts', 'sandbox'], {
      env: { PATH: process.env.PATH ?? '', SANDBOX_PORT: '0', SANDBOX_SLACK_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.includes('Ctrl-C to stop.')) resolve();
        });
        child.once('exit', () => reject(new Error(`payops sandbox exited: ${stderr}`)));
      });
      const env = Object.fromEntries(
        [...stdout.matchAll(/^export (\w+)='([^']*)'$/gm)].map(([, name, value]) => [name, value]),
      ) as Record<string, string>;
      for (const name of [
        'PAYMENTS_BASE_URL',
        'PAYMENTS_API_KEY',
        'PAYMENTS_EXPECTED_CUSTOMER_ID',
        'SLACK_BOT_TOKEN',
        'SLACK_SIGNING_SECRET',
        'SLACK_API_URL',
        'PAYOPS_READERS',
        'PAYOPS_REQUESTERS',
        'PAYOPS_APPROVERS',
        'PAYOPS_APPROVALS_CHANNEL',
        'PAYOPS_SIGNING_KEY',
        'PAYOPS_ENCRYPTION_KEY',
      ]) {
        expect(env[name], name).toMatch(/\S/);
      }
      expect(() => loadConfig(env)).not.toThrow();
      const slackApi = env.SLACK_API_URL ?? '';
      expect(slackApi).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/$/);

      const payops = await startPayops('from the sandbox environment', env);
      const command = new URLSearchParams({
        command: '/pay',
        text: 'help',
        user_id: 'U0DAVE',
        channel_id: 'C0PAYOPS',
        response_url: `${slackApi.replace(/api\/$/, '')}respond/none`,
        trigger_id: 'trigger',
      }).toString();
      const signed = await sendSlackRequest(
        payops.eventsUrl,
        env.SLACK_SIGNING_SECRET ?? '',
        command,
        'application/x-www-form-urlencoded',
      );
      expect(signed.status).toBe(200);
      const forged = await sendSlackRequest(
        payops.eventsUrl,
        'another-secret',
        command,
        'application/x-www-form-urlencoded',
      );
      expect(forged.status).toBe(401);
    } finally {
      child.kill('SIGINT');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    }
    expect(stdout).toContain('SIGINT: stopping the sandbox and the Slack emulation');
  });
});
