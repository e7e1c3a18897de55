import { spawn } from 'node:child_process';
import { startPaymentsSandbox } from '../src/sandbox/payments-api.ts';
import { rehearsalEnv } from '../src/sandbox/rehearsal.ts';
import { startSlackEmulation } from '../src/sandbox/slack.ts';
import { Arrivals } from './arrivals.ts';
import { LoadWorker } from './load.ts';
import { approveInBulk, approveOneByOne, createRequests, fullCycle } from './measure.ts';
import { ChildApp } from './processes.ts';
import { SlackRequests } from './slack-requests.ts';
import { postgresStore } from './stores.ts';

const what = process.argv[2] ?? 'cycle';
const store = await postgresStore(process.env.TEST_DATABASE_URL as string);
const sandbox = await startPaymentsSandbox({ latencyMs: 0 });
const emulation = await startSlackEmulation();
const arrivals = new Arrivals(emulation, sandbox);
const requests = new SlackRequests(emulation);
const load = new LoadWorker();
const plan = { rates: [], connections: [], rateRunMs: 0, saturateRunMs: 0, saturateCap: 0, fullCycleConnections: [], fullCycleMs: 4000, sequentialApprovals: 200, bulkApprovals: 1000, bulkConnections: 16 };
const ctx = { requests, load, arrivals, plan };
const payops = await ChildApp.start({ name: 'payops', script: 'src/main.ts', env: { ...rehearsalEnv(sandbox, emulation), LOG_LEVEL: 'warn', ...store.env }, logFile: '/tmp/probe-payops.log', nodeOptions: process.argv.includes('--prof') ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof'] : [] });
const sample = () => spawn('python3', ['/tmp/threads.py', '2.5'], { stdio: 'inherit' });
try {
  if (what === 'cycle') {
    const users = Number(process.argv[3] ?? 10);
    await fullCycle(ctx, payops, users);
    sample();
    console.log(await fullCycle(ctx, payops, users));
  } else {
    const created = await createRequests(ctx, payops, 1200);
    console.log('created/s', created.perSec);
    console.log('click->provider', await approveOneByOne(ctx, payops, created.cards.slice(0, 200)));
    setTimeout(sample, 300);
    console.log(await approveInBulk(ctx, payops, created.cards.slice(200)));
    await new Promise((r) => setTimeout(r, 2600));
  }
} finally {
  await payops.stop();
  arrivals.close();
  await load.close();
  await sandbox.close();
  await emulation.close();
  await store.dispose();
}
