import type { ServerResponse } from 'node:http';
import {
  type AnyMiddlewareArgs,
  App,
  type CustomRoute,
  LogLevel,
  type Middleware,
} from '@slack/bolt';
import type { AccessControl } from '../app/access.ts';
import type { ApprovalWorkflow } from '../app/approvals.ts';
import type { ReadService } from '../app/reads.ts';
import type { RequestQueries } from '../app/request-queries.ts';
import type { SlackConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { boltLogger } from './bolt-logger.ts';
import type { BotIdentity } from './directory.ts';
import type { HomeRefresher } from './home-refresher.ts';
import { register as registerActions } from './listeners/actions/index.ts';
import { register as registerCommands } from './listeners/commands/index.ts';
import { register as registerEvents } from './listeners/events/index.ts';
import { register as registerViews } from './listeners/views/index.ts';
import { createSlackReceiver, ReplayedRequest, type Replays } from './request-edge.ts';

/** What `/readyz` reports: each dependency the bot needs to serve requests. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, boolean>;
}

export interface SlackAppDeps {
  slack: SlackConfig;
  logger: Logger;
  identity: BotIdentity;
  access: AccessControl;
  reads: ReadService;
  workflow: ApprovalWorkflow;
  queries: RequestQueries;
  /** The approvals channel: approval cards and the audit CSV go there only. */
  approvalsChannelId: string;
  readiness(): Promise<Readiness>;
  /** Signed requests already taken, shared by the replicas. */
  replays: Replays;
  /** Draws each Home tab when opened, and keeps it current. */
  home: Pick<HomeRefresher, 'opened'>;
}

/** Listener Web API calls (modals, the Home tab) are retried a little, never for half an hour. */
export const LISTENER_RETRIES = { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2_000 };

export interface SlackApp {
  app: App;
  /** Waits for the requests in progress (a payout half-sent above all), at most `ms`. */
  drain(ms: number): Promise<void>;
}

/**
 * payops's one Bolt app: HTTP receiver (Socket Mode with an app token), health routes, the
 * requests in progress (for a stop to wait on), and every listener, each acknowledging first
 * and then calling a use case.
 */
export function createSlackApp(deps: SlackAppDeps): SlackApp {
  const { slack, identity } = deps;
  const logger = boltLogger(deps.logger);
  const customRoutes: CustomRoute[] = [
    {
      path: '/healthz',
      method: ['GET'],
      handler: (_req, res) => json(res, 200, { alive: true }),
    },
    {
      path: '/readyz',
      method: ['GET'],
      handler: (_req, res) => {
        deps
          .readiness()
          .then((readiness) => json(res, readiness.ready ? 200 : 503, readiness))
          .catch(() => json(res, 503, { ready: false, checks: {} }));
      },
    },
  ];
  const app = new App({
    token: slack.botToken,
    botId: identity.botId,
    botUserId: identity.botUserId,
    logger,
    logLevel: LogLevel.DEBUG,
    // payops keeps no per-conversation state in Bolt.
    convoStore: false,
    clientOptions: {
      ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl } : {}),
      retryConfig: LISTENER_RETRIES,
    },
    // Over a socket Slack's messages come on a connection payops opened to Slack, unsigned:
    // there is no request to forge, replay or oversize, so the edge below is HTTP's only.
    ...(slack.appToken
      ? {
          socketMode: true,
          appToken: slack.appToken,
          customRoutes,
          installerOptions: { port: slack.port },
        }
      : {
          receiver: createSlackReceiver(
            { signingSecret: slack.signingSecret, port: slack.port, customRoutes, logger },
            { replays: deps.replays, logger: deps.logger },
          ),
        }),
  });
  const inProgress = new Set<Promise<void>>();
  app.use(tracking(inProgress));
  app.error(async (error) => {
    const original = (error as { original?: unknown }).original ?? error;
    if (original instanceof ReplayedRequest) deps.logger.warn(original.message);
    else deps.logger.error({ err: error }, 'a Slack listener failed');
  });
  registerListeners(app, deps);
  return {
    app,
    async drain(ms) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, ms);
      });
      await Promise.race([Promise.allSettled([...inProgress]), deadline]);
      clearTimeout(timer);
    },
  };
}

/**
 * Every listener payops has, grouped by Slack surface. The manifest test calls this with a
 * recorder to check that manifest.yml declares exactly what the code registers.
 */
export function registerListeners(app: App, deps: Omit<SlackAppDeps, 'replays'>): void {
  const readerDeps = {
    command: deps.slack.command,
    readers: deps.slack.readers,
    channels: deps.slack.channels,
    accessAdmin: deps.slack.accessAdmin,
    access: deps.access,
    reads: deps.reads,
    logger: deps.logger,
  };
  const approvalDeps = {
    workflow: deps.workflow,
    queries: deps.queries,
    reads: deps.reads,
    approvalsChannelId: deps.approvalsChannelId,
    accessAdmin: deps.slack.accessAdmin,
    command: deps.slack.command,
    requirePurpose: deps.slack.requirePurpose,
    logger: deps.logger,
  };
  registerCommands(app, { ...readerDeps, approvals: approvalDeps });
  registerActions(app, approvalDeps);
  registerViews(app, approvalDeps);
  registerEvents(app, { home: deps.home, access: deps.access, logger: deps.logger });
}

/** Every request in progress, so that a stop can wait for them (`drain`). */
function tracking(inProgress: Set<Promise<void>>): Middleware<AnyMiddlewareArgs> {
  return async ({ next }) => {
    const work = next();
    inProgress.add(work);
    try {
      await work;
    } finally {
      inProgress.delete(work);
    }
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
