import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { AccessControl } from './app/access.ts';
import { ApprovalWorkflow } from './app/approvals.ts';
import { runFirstChecks } from './app/first-checks.ts';
import { ReadService } from './app/reads.ts';
import type { Config } from './config.ts';
import { loadPolicy } from './domain/policy.ts';
import type { Logger } from './logger.ts';
import { PaymentsClient } from './payments/client.ts';
import { ProviderBusyError } from './payments/errors.ts';
import { SlackEngine } from './slack/app.ts';
import { boltLogger } from './slack/bolt-logger.ts';
import { type BotIdentity, resolveBotIdentity, slackGroupDirectory } from './slack/directory.ts';
import {
  type EngineLink,
  type ForwardedEvent,
  type Readiness,
  WEB_API_RETRIES,
} from './slack/ingress.ts';
import { ApprovalMessages } from './slack/listeners/approval-messages.ts';
import { createSlackHttp } from './slack/slack-http.ts';
import { PayopsWebClient } from './slack/web-client.ts';
import type { Database } from './store/database.ts';
import { migrate } from './store/migrate.ts';
import { openPglite } from './store/pglite.ts';
import { openPostgres } from './store/postgres.ts';
import { RequestStore } from './store/request-store.ts';

/** How long a `/readyz` answer about the provider is reused, so probes do not hammer it. */
const PROVIDER_PROBE_TTL_MS = 5_000;

export interface EngineOptions {
  /** The workflow's clock (expiry, leases); tests move it instead of waiting a day. */
  now?: () => Date;
}

/** Everything but the front door: listeners, workflow, store, Payments client, sweeper. */
export interface RunningEngine {
  identity: BotIdentity;
  workflow: ApprovalWorkflow;
  slack: SlackEngine;
  readiness(): Promise<Readiness>;
  /** Stops the sweeper, lets requests in progress finish (up to the lease), then closes. */
  stop(): Promise<void>;
}

/**
 * The composition root of the engine: config → Payments client → first checks → store →
 * workflow → Slack listeners. Refuses to start unless the provider's first checks pass for the
 * expected business.
 */
export async function startEngine(
  config: Config,
  logger: Logger,
  options: EngineOptions = {},
): Promise<RunningEngine> {
  const policy = loadPolicy(config.approvals.policyFile);
  const payments = new PaymentsClient({ ...config.payments, logger });
  const report = await runFirstChecks(payments, {
    customerId: config.payments.expectedCustomerId,
    scopes: config.payments.expectedScopes,
  });
  if (!report.ok || !report.identity) {
    await payments.close();
    const failed = report.checks.filter((check) => !check.ok);
    throw new StartupRefused(failed.map((check) => `${check.name}: ${check.detail}`).join('\n'));
  }
  logger.info(
    { customerId: report.identity.customerId, scopes: report.identity.scopes },
    'first checks passed',
  );

  let db: Database;
  try {
    db = await openStore(config);
    await migrate(db);
  } catch (error) {
    await payments.close();
    throw error;
  }

  const slackHttp = createSlackHttp();
  const web = new PayopsWebClient(config.slack.botToken, {
    ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
    fetch: slackHttp.fetch,
    postForm: slackHttp.postForm,
    retryConfig: WEB_API_RETRIES,
    // Through pino, so its debug lines (request bodies, headers) get the same redaction.
    logger: boltLogger(logger),
  });
  let identity: BotIdentity;
  try {
    identity = await resolveBotIdentity(web);
  } catch (error) {
    await Promise.all([slackHttp.close(), payments.close(), db.close()]);
    throw error;
  }
  const access = new AccessControl(slackGroupDirectory(web));
  const reads = new ReadService(payments, report.identity.scopes);
  const workflow = new ApprovalWorkflow({
    store: new RequestStore(db),
    client: payments,
    keyScopes: report.identity.scopes,
    policy,
    access,
    roles: { requesters: config.approvals.requesters, approvers: config.approvals.approvers },
    instanceId: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: config.approvals.executionLeaseMs,
    logger,
    ...(options.now ? { now: options.now } : {}),
  });
  const messages = new ApprovalMessages(web, workflow, config.approvals.channelId, logger);
  const slack = new SlackEngine(
    { slack: config.slack, logger, identity, access, reads, workflow, messages },
    { client: web, respondTo: slackHttp.respondTo },
  );

  let providerProbe: { at: number; ok: boolean } | undefined;
  const providerReachable = async (): Promise<boolean> => {
    if (providerProbe && Date.now() - providerProbe.at < PROVIDER_PROBE_TTL_MS)
      return providerProbe.ok;
    // Busy means it answers, slowly: not a reason to take this replica out of rotation.
    const ok = await payments.call('health').then(
      () => true,
      (error) => error instanceof ProviderBusyError,
    );
    providerProbe = { at: Date.now(), ok };
    return ok;
  };

  // Expiry, and recovery of executions a dead process left behind: now, then periodically.
  // The one running now, so that stop() can wait for it.
  let sweeping: Promise<unknown> = Promise.resolve();
  const sweep = () => {
    sweeping = workflow
      .sweep()
      .then((changes) =>
        Promise.all(changes.map(({ request, notify }) => messages.refresh(request, { notify }))),
      )
      .catch((error) => logger.error({ err: error }, 'sweep failed'));
    return sweeping;
  };
  await sweep();
  const sweeper = setInterval(sweep, config.approvals.sweepIntervalMs);
  sweeper.unref();

  return {
    identity,
    workflow,
    slack,
    async readiness() {
      const checks = {
        store: await db.ping(),
        provider: await providerReachable(),
        slackIdentity: true,
      };
      return { ready: Object.values(checks).every(Boolean), checks };
    },
    async stop() {
      clearInterval(sweeper);
      await Promise.all([slack.drain(config.approvals.executionLeaseMs), sweeping]);
      await slackHttp.close();
      await payments.close();
      await db.close();
    },
  };
}

/** The engine in this thread: the ingress calls it directly. */
export function directLink(engine: RunningEngine): EngineLink {
  let backlog = 0;
  const handOver = (event: ForwardedEvent) => {
    backlog++;
    return engine.slack.process(event, () => backlog--);
  };
  return {
    forward(event) {
      void handOver(event);
    },
    answerForAck: handOver,
    readiness: () => engine.readiness(),
    backlog: () => backlog,
  };
}

/** PostgreSQL when DATABASE_URL is set; embedded PGlite otherwise (`memory://` keeps nothing). */
function openStore(config: Config): Promise<Database> {
  if (config.store.databaseUrl) return openPostgres(config.store.databaseUrl);
  const { dataDir } = config.store;
  return openPglite(dataDir === 'memory://' ? undefined : dataDir);
}

export class StartupRefused extends Error {
  constructor(details: string) {
    super(`payops refused to start: the provider's first checks did not pass.\n${details}`);
    this.name = 'StartupRefused';
  }
}
