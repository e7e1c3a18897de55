import { App, LogLevel } from '@slack/bolt';
import type { AccessControl } from '../app/access.ts';
import type { ApprovalWorkflow } from '../app/approvals.ts';
import type { ReadService } from '../app/reads.ts';
import type { SlackConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import { boltLogger } from './bolt-logger.ts';
import type { BotIdentity } from './directory.ts';
import type { ForwardedEvent } from './ingress.ts';
import { WEB_API_RETRIES } from './ingress.ts';
import { registerAppHome } from './listeners/app-home.ts';
import type { ApprovalMessages } from './listeners/approval-messages.ts';
import { registerApprovals } from './listeners/approvals.ts';
import { registerCommands } from './listeners/commands.ts';
import { registerEvents } from './listeners/events.ts';
import type { ListenerRegistry } from './listeners/registry.ts';

export interface SlackAppDeps {
  slack: SlackConfig;
  logger: Logger;
  identity: BotIdentity;
  access: AccessControl;
  reads: ReadService;
  workflow: ApprovalWorkflow;
  messages: ApprovalMessages;
}

/** Bolt wants a receiver; the ingress is the real one, so this one only holds the place. */
const FORWARDED_ONLY = {
  init: () => {},
  start: async () => {},
  stop: async () => {},
};

/**
 * payops's listeners in a Bolt app that receives nothing itself: the ingress hands it requests
 * it has verified (and, but for modal submissions, acknowledged). Listeners keep Bolt's
 * `ack`, `respond` and `client` as if the request had come straight from Slack.
 */
export class SlackEngine {
  readonly #app: App;
  readonly #logger: Logger;
  readonly #inFlight = new Set<Promise<void>>();

  /** `fetch`: how Bolt's `respond` and its WebClients reach Slack. */
  constructor(deps: SlackAppDeps, transport: { fetch: typeof fetch }) {
    const { slack, identity } = deps;
    this.#logger = deps.logger;
    this.#app = new App({
      token: slack.botToken,
      botId: identity.botId,
      botUserId: identity.botUserId,
      receiver: FORWARDED_ONLY,
      logger: boltLogger(deps.logger),
      logLevel: LogLevel.DEBUG,
      convoStore: false,
      clientOptions: {
        ...(slack.apiUrl ? { slackApiUrl: slack.apiUrl } : {}),
        retryConfig: WEB_API_RETRIES,
        fetch: transport.fetch,
      },
    });
    this.#app.error(async (error) => {
      this.#logger.error({ err: error }, 'a Slack listener failed');
    });
    registerListeners(this.#app, deps);
  }

  /**
   * Runs the request's listener; resolves with what its `ack` carried, as soon as it acks.
   * `finished` is called once the listener is done with it, whatever happened.
   */
  process(event: ForwardedEvent, finished?: () => void): Promise<unknown> {
    let answered: (answer: unknown) => void = () => {};
    const answer = new Promise<unknown>((resolve) => {
      answered = resolve;
    });
    const done: Promise<void> = this.#app
      .processEvent({
        body: event.body,
        ...(event.retryNum === undefined ? {} : { retryNum: event.retryNum }),
        ...(event.retryReason === undefined ? {} : { retryReason: event.retryReason }),
        ack: async (response?: unknown) => answered(response),
      })
      .catch((error: unknown) => this.#logger.error({ err: error }, 'a Slack request failed'))
      .finally(() => {
        // A listener that never acknowledged: its request is answered empty.
        answered(undefined);
        this.#inFlight.delete(done);
        finished?.();
      });
    this.#inFlight.add(done);
    return answer;
  }

  /** Waits for the requests being worked on (a payout half-sent above all), at most `ms`. */
  async drain(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    });
    await Promise.race([Promise.allSettled([...this.#inFlight]), deadline]);
    clearTimeout(timer);
  }
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
