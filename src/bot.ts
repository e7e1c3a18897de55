import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { WebClient } from '@slack/web-api';
import { AccessControl, type GroupDirectory } from './app/access.ts';
import { ApprovalWorkflow } from './app/approvals.ts';
import { ApproverGroups } from './app/approver-groups.ts';
import { approverSupply } from './app/approver-supply.ts';
import { runFirstChecks } from './app/first-checks.ts';
import { Follower } from './app/follow-up.ts';
import { auditPolicy } from './app/policy-audit.ts';
import { ReadService } from './app/reads.ts';
import { RequestQueries } from './app/request-queries.ts';
import { type Config, secretsOf } from './config.ts';
import { ApproverShortageError, approverShortage, stepGroupIds } from './domain/policy.ts';
import { stepRole } from './domain/roles.ts';
import { registerSecrets } from './domain/scrub.ts';
import { Signer } from './domain/signer.ts';
import type { Logger } from './logger.ts';
import { PaymentsClient } from './payments/client.ts';
import { createSlackApp, type SlackApp } from './slack/app.ts';
import type { FreezeNotice } from './slack/blocks/approval-card.ts';
import { boltLogger } from './slack/bolt-logger.ts';
import { resolveBotIdentity, slackGroupDirectory } from './slack/directory.ts';
import { slackDocumentReader } from './slack/documents.ts';
import { HomeRefresher } from './slack/home-refresher.ts';
import { DISPATCH_CALL_TIMEOUT_MS, SlackOutbox } from './slack/outbox.ts';
import { SlackRateLimiter } from './slack/rate-limits.ts';
import type { Replays } from './slack/request-edge.ts';
import { outcomeWords } from './slack/text/outcomes.ts';
import { providerErrorText } from './slack/text/provider-errors.ts';
import { ApproverGroupsStore } from './store/approver-groups-store.ts';
import { FollowStore } from './store/follow-store.ts';
import { HomeStore } from './store/home-store.ts';
import { migrate } from './store/migrate.ts';
import { openStore } from './store/open-store.ts';
import { OutboxStore } from './store/outbox-store.ts';
import { PayloadCipher } from './store/payload-cipher.ts';
import { PolicyStore } from './store/policy-store.ts';
import { openPostgres } from './store/postgres.ts';
import { RateBucketsStore } from './store/rate-buckets-store.ts';
import { remindDue } from './store/reminder-store.ts';
import { ReplayStore, ReplaysInMemory } from './store/replay-store.ts';
import { type FreezeState, RequestStore } from './store/request-store.ts';

/**
 * The composition root, for production, tests and the demo alike. `startBot` builds the parts
 * (config → Payments client → first checks → Slack identity → store → workflow → Slack outbox →
 * Bolt app), then runs them (sweeps, following, the outbox, the Home tabs, Slack's listener);
 * the bot it returns stops them (no new requests, those in progress drained, all closed).
 */

/** How often expiry, crash recovery and rechecks run. */
const SWEEP_INTERVAL_MS = 30_000;
/** The longest a follow-up waits past its due time before a look. */
const FOLLOW_LOOK_MAX_MS = 5_000;
/** How long a `/readyz` answer about the provider is reused, so probes do not hammer it. */
const PROVIDER_PROBE_TTL_MS = 5_000;
/**
 * Connections of the replay guard's own on PostgreSQL: its verdict is awaited before any work
 * and must not queue behind a burst's.
 */
const REPLAY_CONNECTIONS = 8;

/** What tests and rehearsals change that no operator would: not in the environment. */
export interface BotOptions {
  /** The workflow's clock (expiry, leases); tests move it instead of waiting a day. */
  now?: () => Date;
  /** How often expiry, crash recovery and rechecks run (30 s); tests shorten or stop it. */
  sweepIntervalMs?: number;
}

export interface RunningBot {
  /** The HTTP port Slack requests and health checks reach (also in Socket Mode). */
  port: number | undefined;
  workflow: ApprovalWorkflow;
  queries: RequestQueries;
  /** What is stored, for the tests and rehearsals that look at it. */
  store: RequestStore;
  /** Stops taking requests, lets those in progress finish (up to the lease), then closes. */
  stop(): Promise<void>;
}

/** Refuses to start unless the provider's first checks pass for the expected business. */
export async function startBot(
  config: Config,
  logger: Logger,
  options: BotOptions = {},
): Promise<RunningBot> {
  // Before anything can echo one: no text payops shows or exports may carry them.
  registerSecrets(secretsOf(config));
  const closing = new Closing(logger);
  try {
    const parts = await build(config, logger, options, closing);
    const port = await run(parts, config, logger, options, closing);
    return {
      port,
      workflow: parts.workflow,
      queries: parts.queries,
      store: parts.store,
      async stop() {
        await parts.slack.app.stop();
        await parts.slack.drain(config.approvals.executionLeaseMs);
        await closing.closeAll();
      },
    };
  } catch (error) {
    await closing.closeAll();
    throw error;
  }
}

/** A bot's parts, built and checked, none running yet. */
interface Parts {
  store: RequestStore;
  queries: RequestQueries;
  workflow: ApprovalWorkflow;
  follower: Follower;
  outbox: SlackOutbox;
  home: HomeRefresher;
  slack: SlackApp;
}

async function build(
  config: Config,
  logger: Logger,
  options: BotOptions,
  closing: Closing,
): Promise<Parts> {
  const payments = new PaymentsClient({ ...config.payments, logger });
  closing.add(() => payments.close());
  const keyScopes = await passFirstChecks(payments, config, logger);

  const slackClient = outboxClient(config, logger);
  const identity = await resolveBotIdentity(slackClient);
  const directory = slackGroupDirectory(slackClient);
  await checkApproverSupply(config, directory, logger);

  const signer = new Signer(config.signingKey);
  const db = await openStore(config.store, signer.auditKey, logger);
  closing.add(() => db.close());
  await migrate(db);
  const store = new RequestStore(db, new PayloadCipher(config.encryption));
  // Before any request is served under it: recorded, and a change announced, once.
  const policy = await auditPolicy(new PolicyStore(db), config.approvals.policy);
  logger.info({ policy }, 'approval policy in force');

  const instanceId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const approverGroups = new ApproverGroups({
    store: new ApproverGroupsStore(db),
    groups: config.approvals.approvers.groups,
    onChange: () => outbox.nudge(),
    logger,
  });
  // Before the store closes: what was learnt of a group is recorded.
  closing.add(() => approverGroups.settled());
  const access = new AccessControl(directory, { watch: approverGroups });
  const reads = new ReadService(payments, keyScopes);
  const outboxStore = new OutboxStore(db);
  const queries = new RequestQueries({
    store,
    outbox: outboxStore,
    stepMember: async (approvers, userId) =>
      (await access.check(stepRole(approvers), userId)).allowed,
  });
  const limiter = new SlackRateLimiter(new RateBucketsStore(db), config.slack.rateLimitScale);
  const outbox = new SlackOutbox({
    store: outboxStore,
    current: async (id) => {
      const found = await store.getWithFreeze(id);
      return found && { request: found.request, freeze: freezeNotice(found.freeze) };
    },
    client: slackClient,
    botId: identity.botId,
    approvalsChannelId: config.approvals.channelId,
    command: config.slack.command,
    approvers: config.approvals.approvers,
    limiter,
    logger,
    instanceId,
  });
  const workflow = new ApprovalWorkflow({
    store,
    // The Home tabs are built next, from the workflow; nothing changes before both run.
    onChange: () => {
      outbox.nudge();
      home.nudge();
    },
    client: payments,
    signer,
    preflight: config.approvals.preflight,
    keyScopes,
    policy: config.approvals.policy,
    access,
    roles: { requesters: config.approvals.requesters, approvers: config.approvals.approvers },
    instanceId,
    leaseMs: config.approvals.executionLeaseMs,
    logger,
    ...(options.now ? { now: options.now } : {}),
    remind: (now) => remindDue(db, now, config.approvals.remindAfterMs),
    outcomeWords: outcomeWords(config.slack.command),
    documents: slackDocumentReader({
      client: slackClient,
      botToken: config.slack.botToken,
      apiUrl: config.slack.apiUrl,
    }),
  });
  const home = new HomeRefresher({
    homes: new HomeStore(db),
    workflow,
    queries,
    access,
    readers: config.slack.readers,
    reads,
    command: config.slack.command,
    accessAdmin: config.slack.accessAdmin,
    freeze: async () => freezeNotice(await store.freezeState()),
    client: slackClient,
    limiter,
    logger,
    ...(options.now ? { now: options.now } : {}),
  });
  const follower = new Follower({
    store: new FollowStore(db),
    requests: store,
    client: payments,
    keyScopes,
    statuses: config.follow.statuses,
    followForMs: config.follow.forMs,
    returnWindowMs: config.follow.returnWindowMs,
    intervalMs: config.follow.intervalMs,
    instanceId,
    logger,
    onChange: () => outbox.nudge(),
  });

  const replays = await replayGuard(config, closing);
  const providerReachable = providerProbe(payments);
  const slack = createSlackApp({
    slack: config.slack,
    logger,
    identity,
    access,
    reads,
    workflow,
    queries,
    approvalsChannelId: config.approvals.channelId,
    replays,
    home,
    async readiness() {
      const checks = { store: await db.ping(), provider: await providerReachable() };
      return { ready: Object.values(checks).every(Boolean), checks };
    },
  });
  return { store, queries, workflow, follower, outbox, home, slack };
}

/** Starts the parts, Slack's listener last; resolves with the port it listens on. */
async function run(
  parts: Parts,
  config: Config,
  logger: Logger,
  options: BotOptions,
  closing: Closing,
): Promise<number | undefined> {
  // Expiry, and recovery of executions a dead process left behind: now, then periodically.
  // Not awaited: a sweep that fails or takes long (a provider slow to list) is logged, and the
  // process starts all the same.
  closing.add(
    repeat(() => parts.workflow.sweep(), options.sweepIntervalMs ?? SWEEP_INTERVAL_MS, {
      first: 'now',
      onError: (error) => logger.error({ err: error }, 'sweep failed'),
    }),
  );
  // Looks for due follow-ups a few times per interval: a due one waits at most a fraction of it.
  closing.add(
    repeat(
      () => parts.follower.followDue(),
      Math.min(config.follow.intervalMs, FOLLOW_LOOK_MAX_MS),
      {
        first: 'after',
        onError: (error) => logger.error({ err: error }, 'following failed; trying again'),
      },
    ),
  );
  parts.outbox.start();
  closing.add(() => parts.outbox.stop());
  parts.home.start();
  closing.add(() => parts.home.stop());

  const server = (await parts.slack.app.start({
    port: config.slack.port,
    host: config.slack.host,
  })) as Server | undefined;
  const address = server?.address?.();
  const port = typeof address === 'object' && address ? address.port : config.slack.port;
  logger.info(
    {
      port,
      mode: config.slack.appToken ? 'socket' : 'http',
      command: config.slack.command,
      store: config.store.databaseUrl ? 'postgres' : 'pglite',
    },
    'payops is listening',
  );
  return port;
}

/** What the bot opened, closed last opened first, one at a time: the outbox needs the store. */
class Closing {
  readonly #closers: Array<() => Promise<unknown>> = [];
  constructor(private readonly logger: Logger) {}

  add(close: () => Promise<unknown>): void {
    this.#closers.push(close);
  }

  async closeAll(): Promise<void> {
    for (const close of this.#closers.splice(0).reverse()) {
      await close().catch((error) => this.logger.error({ err: error }, 'error while closing'));
    }
  }
}

/**
 * Runs `task` every `intervalMs` (and at once when `first` is `now`), one run at a time; resolves
 * with what stops it, once the run in progress has ended.
 */
function repeat(
  task: () => Promise<unknown>,
  intervalMs: number,
  { first, onError }: { first: 'now' | 'after'; onError: (error: unknown) => void },
): () => Promise<unknown> {
  let running: Promise<unknown> | undefined;
  const tick = () => {
    running ??= task()
      .catch(onError)
      .finally(() => {
        running = undefined;
      });
  };
  if (first === 'now') tick();
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The key's scopes, once the provider's first checks pass for the expected business. */
async function passFirstChecks(
  payments: PaymentsClient,
  config: Config,
  logger: Logger,
): Promise<string[]> {
  const report = await runFirstChecks(
    payments,
    {
      customerId: config.payments.expectedCustomerId,
      scopes: config.payments.expectedScopes,
    },
    providerErrorText,
  );
  if (!report.ok || !report.identity) {
    const failed = report.checks.filter((check) => !check.ok);
    throw new StartupRefused(failed.map((check) => `${check.name}: ${check.detail}`).join('\n'));
  }
  logger.info(
    { customerId: report.identity.customerId, scopes: report.identity.scopes },
    'first checks passed',
  );
  return report.identity.scopes;
}

/** A rule that needs more approvers than there are would leave its requests pending forever. */
async function checkApproverSupply(
  config: Config,
  directory: GroupDirectory,
  logger: Logger,
): Promise<void> {
  const supply = await approverSupply(
    config.approvals,
    directory,
    stepGroupIds(config.approvals.policy),
  );
  const shortage = approverShortage(config.approvals.policy, supply);
  if (shortage?.certain) throw new ApproverShortageError(shortage.message, shortage.remedy);
  if (shortage) {
    logger.warn({ shortage: shortage.message }, 'the policy may need more approvers than counted');
  }
}

/** The outbox's client: one try per call, 429s returned to it (it keeps to the limits itself). */
function outboxClient(config: Config, logger: Logger): WebClient {
  return new WebClient(config.slack.botToken, {
    ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
    // Through pino, so its debug lines (request bodies, headers) get the same redaction.
    logger: boltLogger(logger),
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: DISPATCH_CALL_TIMEOUT_MS,
  });
}

/** Whether the provider answers; reused for a few seconds so probes do not hammer it. */
function providerProbe(payments: PaymentsClient): () => Promise<boolean> {
  let probe: { at: number; ok: boolean } | undefined;
  return async () => {
    if (probe && Date.now() - probe.at < PROVIDER_PROBE_TTL_MS) return probe.ok;
    const ok = await payments.call('health').then(
      () => true,
      () => false,
    );
    probe = { at: Date.now(), ok };
    return ok;
  };
}

/** Every pending card shows the freeze while it lasts. */
function freezeNotice(state: FreezeState): FreezeNotice | undefined {
  if (!state.frozen) return undefined;
  return {
    reason: state.reason ?? 'no reason given',
    by: state.changedBy ?? 'unknown',
    at: state.changedAt ?? new Date().toISOString(),
  };
}

/**
 * Where signed Slack requests are remembered against replays: in this process's memory, and on
 * PostgreSQL also in a table the replicas share, through connections of its own. The embedded
 * store has one process only: memory is enough.
 */
async function replayGuard(config: Config, closing: Closing): Promise<Replays> {
  const local = new ReplaysInMemory();
  if (!config.store.databaseUrl) return { local };
  const own = await openPostgres(config.store.databaseUrl, { max: REPLAY_CONNECTIONS });
  closing.add(() => own.close());
  return { local, shared: new ReplayStore(own) };
}

export class StartupRefused extends Error {
  constructor(details: string) {
    super(`payops refused to start: the provider's first checks did not pass.\n${details}`);
    this.name = 'StartupRefused';
  }
}
