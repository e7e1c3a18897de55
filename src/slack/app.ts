import type { IncomingMessage, ServerResponse } from 'node:http';
import { App, type CustomRoute, LogLevel } from '@slack/bolt';
import type { AccessControl } from '../app/access.ts';
import type { ApprovalWorkflow } from '../app/approvals.ts';
import type { ReadService } from '../app/reads.ts';
import type { SlackConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { boltLogger } from './bolt-logger.ts';
import type { BotIdentity } from './directory.ts';
import { registerAppHome } from './listeners/app-home.ts';
import type { ApprovalMessages } from './listeners/approval-messages.ts';
import { registerApprovals } from './listeners/approvals.ts';
import { registerCommands } from './listeners/commands.ts';
import { registerEvents } from './listeners/events.ts';
import type { ListenerRegistry } from './listeners/registry.ts';

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
  messages: ApprovalMessages;
  /** What `/readyz` reports: each dependency the bot needs to serve requests. */
  readiness: () => Promise<Readiness>;
}

/** Web API calls are retried a little, never for half an hour as the SDK default would. */
const WEB_API_RETRIES = { retries: 2, factor: 2, minTimeout: 250, maxTimeout: 2_000 };

export function createSlackApp(deps: SlackAppDeps): App {
  const { slack, identity } = deps;
  const routes: CustomRoute[] = [
    { path: '/healthz', method: ['GET'], handler: (_req, res) => json(res, 200, { alive: true }) },
    {
      path: '/readyz',
      method: ['GET'],
      handler: (_req: IncomingMessage, res: ServerResponse) => {
        deps
          .readiness()
          .then((readiness) => json(res, readiness.ready ? 200 : 503, readiness))
          .catch(() => json(res, 503, { ready: false, checks: {} }));
      },
    },
  ];
  const app = new App({
    token: slack.botToken,
    signingSecret: slack.signingSecret,
    botId: identity.botId,
    botUserId: identity.botUserId,
    logger: boltLogger(deps.logger),
    logLevel: LogLevel.DEBUG,
    customRoutes: routes,
    clientOptions: {
      ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl } : {}),
      retryConfig: WEB_API_RETRIES,
    },
    ...(slack.appToken
      ? { socketMode: true, appToken: slack.appToken, installerOptions: { port: slack.port } }
      : { port: slack.port }),
  });
  registerListeners(app, deps);
  return app;
}

/**
 * Every listener payops has. The manifest test calls this with a recorder to check that
 * manifest.yml declares exactly what the code registers.
 */
export function registerListeners(app: ListenerRegistry, deps: SlackAppDeps): void {
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
    messages: deps.messages,
    reads: deps.reads,
    accessAdmin: deps.slack.accessAdmin,
    logger: deps.logger,
  };
  registerCommands(app, { ...readerDeps, approvals: approvalDeps });
  registerAppHome(app, readerDeps);
  registerApprovals(app, approvalDeps);
  registerEvents(app, { access: deps.access, logger: deps.logger });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
