import { execFile, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/domain/operations.ts';
import {
  type PaymentsSandbox,
  startPaymentsSandbox,
} from '../../src/rehearsal/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/rehearsal/sandbox/slack.ts';
import { ACTION, VIEW } from '../../src/slack/interaction-ids.ts';
import {
  cleanUpPayops,
  clickApprove,
  createPayoutCalls,
  npmStartArguments,
  PayopsProcess,
  payopsEnvironment,
  requestPayout,
  sleep,
  spawnPayops,
  startPayops,
} from '../helpers/bot-process.ts';

/**
 * payops as a process of its own, as `npm start` runs it: a modal's answer inside its
 * acknowledgement, a port it cannot take, a database it cannot reach, readiness, and a shutdown
 * that lets a payout in flight finish and tells its outcome; then the build, as production runs
 * it with its dependencies alone: `npm start` and the `payops` bin.
 */

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const execFileAsync = promisify(execFile);

let sandbox: PaymentsSandbox;
let slack: SlackEmulation;

beforeAll(async () => {
  [sandbox, slack] = await Promise.all([startPaymentsSandbox(), startSlackEmulation()]);
});
afterEach((context) => {
  sandbox.setLatency(0);
  return cleanUpPayops(context.task.result?.state === 'fail');
});
afterAll(async () => {
  await Promise.all([sandbox?.close(), slack?.close()]);
});

describe('payops as a process', () => {
  it("carries a modal's field errors back inside its acknowledgement, then records the reason", {
    timeout: 30_000,
  }, async () => {
    const payops = await startPayops('modal', payopsEnvironment(sandbox, slack, {}));
    const driver = slack.driver(payops.eventsUrl);
    const message = await requestPayout(slack, driver);
    const formsBefore = slack.callsTo('views.update').length;
    await driver.blockAction({
      userId: 'U0CAROL',
      actionId: ACTION.reject,
      message: { channel: message.channel, ts: message.ts },
    });
    const form = await slack.waitForCall(
      'views.update',
      (call) =>
        slack.callsTo('views.update').indexOf(call) >= formsBefore &&
        JSON.stringify(call.args).includes(VIEW.rejectReason),
    );
    const viewId = String(form.args.view_id);
    const reason = (value: string) => ({
      values: { reason: { reason: { type: 'plain_text_input', value } } },
    });

    const empty = await driver.viewSubmission({
      userId: 'U0CAROL',
      view: { id: viewId, state: reason('   ') },
    });
    expect(empty.status).toBe(200);
    expect(empty.ack).toMatchObject({ response_action: 'errors', errors: { reason: /why/i } });

    const given = await driver.viewSubmission({
      userId: 'U0CAROL',
      view: { id: viewId, state: reason('wrong beneficiary') },
    });
    expect(given.status).toBe(200);
    expect(JSON.stringify(given.ack ?? {})).not.toContain('errors');
    const told = await slack.waitForCall(
      'chat.postMessage',
      (call) => call.args.thread_ts === message.ts && /rejected/.test(String(call.args.text)),
    );
    expect(String(told.args.text)).toContain('wrong beneficiary');
    expect(createPayoutCalls(sandbox)).toHaveLength(0);
  });

  it('exits when it cannot listen (port taken), holding nothing', {
    timeout: 40_000,
  }, async () => {
    const squatter = createServer().listen(0, '127.0.0.1');
    await once(squatter, 'listening');
    const { port } = squatter.address() as AddressInfo;
    try {
      const payops = new PayopsProcess('port-taken', port, payopsEnvironment(sandbox, slack, {}));
      const exit = await Promise.race([payops.exited, sleep(30_000).then(() => 'still running')]);
      expect(exit).toEqual({ code: 1, signal: null });
    } finally {
      squatter.close();
    }
  });

  it('exits 2, as for any invalid configuration, when its policy file is invalid', {
    timeout: 30_000,
  }, async () => {
    const policy = join(mkdtempSync(join(tmpdir(), 'payops-policy-')), 'policy.yml');
    writeFileSync(policy, 'rules:\n  - approvals: many\n');
    const payops = await spawnPayops(
      'bad-policy',
      payopsEnvironment(sandbox, slack, { PAYOPS_POLICY_FILE: policy }),
    );
    const exit = await Promise.race([payops.exited, sleep(25_000).then(() => 'still running')]);
    expect(exit).toEqual({ code: 2, signal: null });
    expect(payops.output()).toContain('approvals');
  });

  it('exits when PostgreSQL cannot be reached, without printing its password', {
    timeout: 30_000,
  }, async () => {
    const payops = await spawnPayops(
      'no-database',
      payopsEnvironment(sandbox, slack, {
        DATABASE_URL: 'postgres://payops:Unr3achable-Secret@127.0.0.1:9/payops',
      }),
    );
    const exit = await Promise.race([payops.exited, sleep(25_000).then(() => 'still running')]);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(payops.output()).toContain('ECONNREFUSED');
    expect(payops.output()).not.toContain('Unr3achable');
  });

  it('answers /readyz with each dependency’s check', { timeout: 30_000 }, async () => {
    const payops = await startPayops('ready', payopsEnvironment(sandbox, slack, {}));
    const response = await fetch(payops.eventsUrl.replace('/slack/events', '/readyz'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ready: true,
      checks: { store: true, provider: true },
    });
  });

  it('on SIGTERM, lets a payout already sent to the provider finish and tells its outcome', {
    timeout: 30_000,
  }, async () => {
    const payops = await startPayops('drain', payopsEnvironment(sandbox, slack, {}));
    const driver = slack.driver(payops.eventsUrl);
    const message = await requestPayout(slack, driver);
    const payoutsBefore = createPayoutCalls(sandbox).length;
    sandbox.setLatency(1_500);
    await clickApprove(driver, message, 'U0BOB');
    const { method, path } = OPERATIONS.createPayout;
    await slack.waitFor(
      () => sandbox.requests.find((call) => call.method === method && call.path === `/v1${path}`),
      { description: 'the payout reaching the provider', timeoutMs: 10_000 },
    );

    const exit = await payops.stop(10_000);

    expect(exit).toEqual({ code: 0, signal: null });
    expect(createPayoutCalls(sandbox).length - payoutsBefore).toBe(1);
    const told = slack
      .callsTo('chat.postMessage')
      .find(
        (call) => call.args.thread_ts === message.ts && /submitted/.test(String(call.args.text)),
      );
    expect(told, 'the requester is told it was submitted before payops exits').toBeDefined();
  });
});

describe('payops as built for production (npm run build)', () => {
  const packageJson = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const bin = (args: string[]) =>
    execFileAsync(process.execPath, [packageJson.bin.payops ?? 'no payops bin', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '' },
    });

  beforeAll(() => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: 'pipe' });
  }, 90_000);

  it("npm start's command answers a command", { timeout: 30_000 }, async () => {
    const payops = await startPayops(
      'built',
      payopsEnvironment(sandbox, slack, {}),
      npmStartArguments(),
    );
    const sent = await slack.driver(payops.eventsUrl).slashCommand({
      text: 'balance wal_acme_eth_ops',
      userId: 'U0DAVE',
      channelId: 'C0PAYOPS',
    });
    expect(sent.status).toBe(200);
    const answer = await slack.nextResponse(sent.responseUrlId, { timeoutMs: 10_000 });
    expect(JSON.stringify(answer.body)).toContain('wal_acme_eth_ops');
  });

  it('runs the payops bin, compiled: --help, doctor --help, and doctor against a sandbox', {
    timeout: 30_000,
  }, async () => {
    expect(packageJson.bin).toEqual({ payops: 'dist/cli/payops.js' });
    const help = await bin(['--help']);
    for (const command of ['start', 'doctor', 'sandbox', 'demo']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command} +\\S`, 'm'));
    }
    expect((await bin(['doctor', '--help'])).stdout).toContain('Usage: payops doctor [--sandbox]');
    expect((await bin(['doctor', '--sandbox'])).stdout).toContain('All first checks passed.');
  });

  it('needs no TypeScript runner in production: tsx (and esbuild) are development dependencies', () => {
    expect(Object.keys(packageJson.dependencies)).not.toContain('tsx');
    expect(Object.keys(packageJson.devDependencies)).toContain('tsx');
  });
});
