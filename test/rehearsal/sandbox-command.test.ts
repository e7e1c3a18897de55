import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { sendSlackRequest } from '../../src/rehearsal/sandbox/slack.ts';
import { cleanUpPayops, startPayops } from '../helpers/bot-process.ts';

/**
 * `payops sandbox` (`npm run sandbox`): the Payments sandbox and an emulated Slack, and an
 * environment that, pasted into a shell, is all `npm run dev` needs.
 */

afterEach(async (context) => {
  await cleanUpPayops(context.task.result?.state === 'fail');
});

/** `payops sandbox …args` on ephemeral ports, its output read as it comes. */
function sandboxCommand(args: string[] = []) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/payops.ts', 'sandbox', ...args],
    {
      env: { PATH: process.env.PATH ?? '', SANDBOX_PORT: '0', SANDBOX_SLACK_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output = { stdout: '', stderr: '' };
  child.stderr.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  /** The environment it printed, once it serves. */
  const serving = new Promise<Record<string, string>>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString();
      if (!output.stdout.includes('Ctrl-C to stop.')) return;
      resolve(
        Object.fromEntries(
          [...output.stdout.matchAll(/^export (\w+)='([^']*)'$/gm)].map(([, name, value]) => [
            name,
            value,
          ]),
        ),
      );
    });
    // 'close', not 'exit': by then all it wrote to stderr has been read.
    child.once('close', () => reject(new Error(`payops sandbox exited: ${output.stderr}`)));
  });
  return { child, output, serving };
}

describe('payops sandbox', () => {
  it('prints a complete environment: with it alone payops starts and answers signed Slack requests', {
    timeout: 60_000,
  }, async () => {
    const { child, output, serving } = sandboxCommand();
    try {
      const env = await serving;
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
    expect(output.stdout).toContain('SIGINT: stopping the sandbox and the Slack emulation');
  });

  it('--profile NAME plays another provider; an unknown name is refused with the names', {
    timeout: 60_000,
  }, async () => {
    const { child, output, serving } = sandboxCommand(['--profile', 'terse']);
    try {
      const env = await serving;
      expect(output.stdout).toContain('playing the terse provider');
      const balance = await fetch(
        `${env.PAYMENTS_BASE_URL}/wallets/wal_acme_sol_treasury/balance`,
        {
          headers: { 'X-Api-Key': env.PAYMENTS_API_KEY ?? '' },
        },
      );
      expect(await balance.json()).toEqual({
        data: [{ asset: 'USDC', free: '98000.00', locked: '0.00' }],
      });
    } finally {
      const exited = child.exitCode !== null ? Promise.resolve() : once(child, 'exit');
      child.kill('SIGINT');
      await exited;
    }

    const refused = sandboxCommand(['--profile', 'stripe']);
    await expect(refused.serving).rejects.toThrow('unknown argument stripe');
    expect(refused.child.exitCode).toBe(2);
    expect(refused.output.stderr).toContain('stablecoin-offramp');
  });
});
