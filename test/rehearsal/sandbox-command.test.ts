import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { sendSlackRequest } from '../../src/rehearsal/sandbox/slack.ts';
import { cleanUpPayops, freePort, PayopsProcess, startPayops } from '../helpers/bot-process.ts';

/**
 * `payops sandbox` (`npm run sandbox`): the Payments sandbox and an emulated Slack, and an
 * environment that, pasted into a shell, is all `npm run dev` needs.
 */

afterEach(async (context) => {
  await cleanUpPayops(context.task.result?.state === 'fail');
});

/** `payops sandbox …args` on ephemeral ports, its output read as it comes. */
function sandboxCommand(args: string[] = [], env: Record<string, string> = {}) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli/payops.ts', 'sandbox', ...args],
    {
      env: { PATH: process.env.PATH ?? '', SANDBOX_PORT: '0', SANDBOX_SLACK_PORT: '0', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
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
      const printed = ['Ctrl-C to stop.', 'type /pay help here'];
      if (!printed.some((end) => output.stdout.includes(end))) return;
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
      // A person rehearsing meets a deployment's defaults: purposes are asked for.
      expect(env.PAYOPS_REQUIRE_PURPOSE).toBeUndefined();
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

  it('says the emulation sends the bot nothing by itself; with --console, what is typed reaches a bot started apart, and quit stops it', {
    timeout: 90_000,
  }, async () => {
    const alone = sandboxCommand();
    try {
      await alone.serving;
      expect(alone.output.stdout).toContain(
        'The emulated Slack sends the bot nothing by itself: start the sandbox with --console',
      );
    } finally {
      alone.child.kill('SIGINT');
      await once(alone.child, 'exit');
    }

    const port = await freePort();
    const botUrl = `http://127.0.0.1:${port}/slack/events`;
    const { child, output, serving } = sandboxCommand(['--console'], { SANDBOX_BOT_URL: botUrl });
    const payops = new PayopsProcess('driven by the sandbox console', port, await serving);
    try {
      expect(output.stdout).toContain(`type /pay help here: the console sends it to ${botUrl}`);
      await payops.ready();
      child.stdin.end('/pay wallets\nquit\n');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
      expect(output.stdout).toMatch(
        /alice@#payops> \/pay wallets\n(waiting…\n)?payops in #payops \(only you can see this\):/,
      );
      expect(output.stdout).toContain('wal_acme_sol_treasury');
      expect(output.stdout).toMatch(/Stopping the sandbox and the Slack emulation\n$/);
    } finally {
      child.kill('SIGINT');
      await payops.stop();
    }
  });
});
