import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/domain/operations.ts';
import { type PaymentsSandbox, startPaymentsSandbox } from '../../src/sandbox/payments-api.ts';
import { type SlackEmulation, startSlackEmulation } from '../../src/sandbox/slack.ts';
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
  startPayops,
} from '../helpers/bot-process.ts';

/**
 * `npm start` runs the ingress on the main thread and the engine in a worker thread. What
 * crosses between them — a modal's answer inside its acknowledgement, readiness, a shutdown that
 * lets a payout in flight finish — is checked here on a real process.
 */

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

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

describe('payops with its engine in a worker thread', () => {
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

  it("runs as built for production: npm run build, then npm start's command answers a command", {
    timeout: 90_000,
  }, async () => {
    execFileSync('npm', ['run', '--silent', 'build'], { cwd: REPO_ROOT, stdio: 'pipe' });
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
    if (process.platform !== 'linux') return;
    // The preload put Node's own threads (those before any JavaScript) under SCHED_IDLE; the
    // ingress, the engine thread and libuv's pool (started later) keep the ordinary policy.
    const pid = payops.pid as number;
    const policies = new Map(
      readdirSync(`/proc/${pid}/task`).map((thread) => [Number(thread), policyOf(pid, thread)]),
    );
    const withPolicy = (wanted: number) =>
      [...policies.keys()].filter((thread) => policies.get(thread) === wanted);
    const idle = withPolicy(SCHED_IDLE);
    expect(idle.length).toBeGreaterThanOrEqual(5);
    expect(policies.get(pid)).toBe(SCHED_OTHER);
    // Node's own threads come first: every idle one was created before every ordinary one but the
    // main thread (thread ids are handed out in order).
    const laterOrdinary = withPolicy(SCHED_OTHER).filter((thread) => thread !== pid);
    expect(laterOrdinary.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...idle)).toBeLessThan(Math.min(...laterOrdinary));
    expect(payops.output()).not.toContain('chrt');
  });

  it('exits, engine and all, when the ingress cannot listen (port taken)', {
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

  it('answers /readyz with the engine’s checks', { timeout: 30_000 }, async () => {
    const payops = await startPayops('ready', payopsEnvironment(sandbox, slack, {}));
    const response = await fetch(payops.eventsUrl.replace('/slack/events', '/readyz'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      ready: true,
      checks: { store: true, provider: true, slackIdentity: true },
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

const SCHED_OTHER = 0;
const SCHED_IDLE = 5;

/** A thread's scheduling policy: field 41 of its /proc stat line (fields 3 on follow the name). */
function policyOf(pid: number, thread: string): number {
  const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]);
}
