import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import { WebClient } from '@slack/web-api';
import { AccessControl } from './app/access.ts';
import { ApprovalWorkflow } from './app/approvals.ts';
import { approverSupply } from './app/approver-supply.ts';
import { runFirstChecks } from './app/first-checks.ts';
import { Follower } from './app/follow-up.ts';
import { ReadService } from './app/reads.ts';
import { RequestQueries } from './app/request-queries.ts';
import { type Config, loadPolicy, secretsOf } from './config.ts';
import { ApproverShortageError, approverShortage } from './domain/policy.ts';
import { registerSecrets } from './domain/scrub.ts';
import { Signer } from './domain/signer.ts';
import type { Logger } from './logger.ts';
import { PaymentsClient } from './payments/client.ts';
import { createSlackApp } from './slack/app.ts';
import type { FreezeNotice } from './slack/blocks/approval-card.ts';
import { boltLogger } from './slack/bolt-logger.ts';
import { resolveBotIdentity, slackGroupDirectory } from './slack/directory.ts';
import { HomeRefresher } from './slack/home-refresher.ts';
import { DISPATCH_CALL_TIMEOUT_MS, SlackOutbox } from './slack/outbox.ts';
import { SlackRateLimiter } from './slack/rate-limits.ts';
import type { Replays } from './slack/request-edge.ts';
import { FollowStore } from './store/follow-store.ts';
import { HomeStore } from './store/home-store.ts';
import { migrate } from './store/migrate.ts';
import { openStore } from './store/open-store.ts';
import { OutboxStore } from './store/outbox-store.ts';
import { PayloadCipher } from './store/payload-cipher.ts';
import { openPostgres } from './store/postgres.ts';
import { RateBucketsStore } from './store/rate-buckets-store.ts';
import { remindDue } from './store/reminder-store.ts';
import { ReplayStore, ReplaysInMemory } from './store/replay-store.ts';
import { type FreezeState, RequestStore } from './store/request-store.ts';

/** The longest a follow-up waits past its due time before a look. */
const FOLLOW_LOOK_MAX_MS = 5_000;
/** How long a `/readyz` answer about the provider is reused, so probes do not hammer it. */
const PROVIDER_PROBE_TTL_MS = 5_000;

export interface BotOptions {
  /** The workflow's clock (expiry, leases); tests move it instead of waiting a day. */
  now?: () => Date;
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

/**
 * The composition root, for production, tests and the demo alike: config → Payments client →
 * first checks → Slack identity (auth.test) → store → workflow → Slack outbox → Bolt app.
 * Refuses to start unless the provider's first checks pass for the expected business.
 */
export async function startBot(
  config: Config,
  logger: Logger,
  options: BotOptions = {},
): Promise<RunningBot> {
  // Before anything can echo one: no text payops shows or exports may carry them.
  registerSecrets(secretsOf(config));
  const policy = loadPolicy(config.approvals.policyFile);
  const payments = new PaymentsClient({ ...config.payments, logger });
  const closing: Array<() => Promise<unknown>> = [() => payments.close()];
  // Last opened, first closed, one at a time: the outbox's last deliveries need the store.
  const closeAll = async () => {
    for (const close of closing.reverse())
      await close().catch((error) => logger.error({ err: error }, 'error while closing'));
  };
  try {
    const report = await runFirstChecks(payments, {
      customerId: config.payments.expectedCustomerId,
      scopes: config.payments.expectedScopes,
    });
    if (!report.ok || !report.identity) {
      const failed = report.checks.filter((check) => !check.ok);
      throw new StartupRefused(failed.map((check) => `${check.name}: ${check.detail}`).join('\n'));
    }
    const keyScopes = report.identity.scopes;
    logger.info(
      { customerId: report.identity.customerId, scopes: keyScopes },
      'first checks passed',
    );

    const slackApi = {
      ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
      // Through pino, so its debug lines (request bodies, headers) get the same redaction.
      logger: boltLogger(logger),
    };
    // The outbox's client: one try per call, 429s returned to it (it keeps to the limits itself).
    const outboxClient = new WebClient(config.slack.botToken, {
      ...slackApi,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      timeout: DISPATCH_CALL_TIMEOUT_MS,
    });
    const identity = await resolveBotIdentity(outboxClient);
    const directory = slackGroupDirectory(outboxClient);
    // A rule that needs more approvers than there are would leave its requests pending forever.
    const shortage = approverShortage(policy, await approverSupply(config.approvals, directory));
    if (shortage?.certain) throw new ApproverShortageError(shortage.message);
    if (shortage) {
      logger.warn(
        { shortage: shortage.message },
        'the policy may need more approvers than counted',
      );
    }

    const signer = new Signer(config.signingKey);
    const db = await openStore(config.store, signer.auditKey, logger, {
      // Another process holds the folder now: anything more, even a clean stop, would write
      // into its store. Exiting is the only safe step left.
      onLost(error) {
        logger.fatal({ err: error }, 'the embedded store was taken over: exiting at once');
        process.exit(1);
      },
    });
    closing.push(() => db.close());
    await migrate(db);

    const instanceId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
    const access = new AccessControl(directory);
    const reads = new ReadService(payments, keyScopes);
    const store = new RequestStore(db, new PayloadCipher(config.encryption));
    const outboxStore = new OutboxStore(db);
    let outbox: SlackOutbox | undefined;
    let home: HomeRefresher | undefined;
    const queries = new RequestQueries({ store, outbox: outboxStore });
    const workflow = new ApprovalWorkflow({
      store,
      onChange: () => {
        outbox?.nudge();
        home?.nudge();
      },
      client: payments,
      signer,
      preflight: config.approvals.preflight,
      keyScopes,
      policy,
      access,
      roles: { requesters: config.approvals.requesters, approvers: config.approvals.approvers },
      instanceId,
      leaseMs: config.approvals.executionLeaseMs,
      logger,
      ...(options.now ? { now: options.now } : {}),
      remind: (now) => remindDue(db, now, config.approvals.remindAfterMs),
    });
    const limiter = new SlackRateLimiter(new RateBucketsStore(db), config.slack.rateLimitScale);
    outbox = new SlackOutbox({
      store: outboxStore,
      current: async (id) => {
        const found = await store.getWithFreeze(id);
        return found && { request: found.request, freeze: freezeNotice(found.freeze) };
      },
      client: outboxClient,
      botId: identity.botId,
      approvalsChannelId: config.approvals.channelId,
      approvers: config.approvals.approvers,
      limiter,
      logger,
      instanceId,
    });
    const running = outbox;
    home = new HomeRefresher({
      homes: new HomeStore(db),
      workflow,
      queries,
      access,
      readers: config.slack.readers,
      reads,
      command: config.slack.command,
      accessAdmin: config.slack.accessAdmin,
      freeze: async () => freezeNotice(await store.freezeState()),
      client: outboxClient,
      limiter,
      logger,
      ...(options.now ? { now: options.now } : {}),
    });
    const homes = home;

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
      home: homes,
      async readiness() {
        const checks = { store: await db.ping(), provider: await providerReachable() };
        return { ready: Object.values(checks).every(Boolean), checks };
      },
    });

    // Expiry, and recovery of executions a dead process left behind: now, then periodically,
    // one sweep at a time. Not awaited: a sweep that fails or takes long (a provider slow to
    // list) is logged, and the process starts all the same.
    let sweeping: Promise<unknown> | undefined;
    const sweep = () => {
      sweeping ??= workflow
        .sweep()
        .catch((error) => logger.error({ err: error }, 'sweep failed'))
        .finally(() => {
          sweeping = undefined;
        });
    };
    sweep();
    const sweeper = setInterval(sweep, config.approvals.sweepIntervalMs);
    sweeper.unref();
    closing.push(async () => {
      clearInterval(sweeper);
      await sweeping;
    });
    closing.push(
      startFollowing(
        new Follower({
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
          onChange: () => outbox?.nudge(),
        }),
        config.follow.intervalMs,
        logger,
      ),
    );
    running.start();
    closing.push(() => running.stop());
    homes.start();
    closing.push(() => homes.stop());

    const server = (await slack.app.start({
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
    return {
      port,
      workflow,
      queries,
      store,
      async stop() {
        await slack.app.stop();
        await slack.drain(config.approvals.executionLeaseMs);
        await closeAll();
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * Looks for due follow-ups a few times per interval (a due one waits at most a fraction of it),
 * one pass at a time; resolves with what stops it.
 */
function startFollowing(
  follower: Follower,
  intervalMs: number,
  logger: Logger,
): () => Promise<unknown> {
  let following: Promise<unknown> = Promise.resolve();
  let busy = false;
  const timer = setInterval(
    () => {
      if (busy) return;
      busy = true;
      following = follower
        .followDue()
        .catch((error) => logger.error({ err: error }, 'following failed; trying again'))
        .finally(() => {
          busy = false;
        });
    },
    Math.min(intervalMs, FOLLOW_LOOK_MAX_MS),
  );
  timer.unref();
  return async () => {
    clearInterval(timer);
    await following;
  };
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
 * PostgreSQL also in a table the replicas share, through connections of its own (its verdict is
 * awaited before any work and must not queue behind a burst's). The embedded store has one
 * process only: memory is enough.
 */
const REPLAY_CONNECTIONS = 8;

async function replayGuard(
  config: Config,
  closing: Array<() => Promise<unknown>>,
): Promise<Replays> {
  const local = new ReplaysInMemory();
  if (!config.store.databaseUrl) return { local };
  const own = await openPostgres(config.store.databaseUrl, { max: REPLAY_CONNECTIONS });
  closing.push(() => own.close());
  return { local, shared: new ReplayStore(own) };
}

export class StartupRefused extends Error {
  constructor(details: string) {
    super(`payops refused to start: the provider's first checks did not pass.\n${details}`);
    this.name = 'StartupRefused';
  }
}
