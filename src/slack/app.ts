import type { WebClient } from '@slack/web-api';
import type { AccessControl } from '../app/access.ts';
import type { ApprovalWorkflow } from '../app/approvals.ts';
import type { ReadService } from '../app/reads.ts';
import type { SlackConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { BotIdentity } from './directory.ts';
import type { ForwardedEvent } from './ingress.ts';
import { registerAppHome } from './listeners/app-home.ts';
import type { ApprovalMessages } from './listeners/approval-messages.ts';
import { registerApprovals } from './listeners/approvals.ts';
import { registerCommands } from './listeners/commands.ts';
import { registerEvents } from './listeners/events.ts';
import { type ListenerRegistry, ListenerRouter } from './listeners/registry.ts';
import type { SlackHttp } from './slack-http.ts';

export interface SlackAppDeps {
  slack: SlackConfig;
  logger: Logger;
  identity: BotIdentity;
  access: AccessControl;
  reads: ReadService;
  workflow: ApprovalWorkflow;
  messages: ApprovalMessages;
}

/**
 * payops's listeners, given the requests the ingress has verified (and, but for modal
 * submissions, acknowledged). A listener's `ack` resolves what the ingress acknowledges with;
 * `respond` answers on the request's response_url; `client` is the engine's WebClient.
 */
export class SlackEngine {
  readonly #router: ListenerRouter;
  readonly #logger: Logger;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(deps: SlackAppDeps, slack: { client: WebClient; respondTo: SlackHttp['respondTo'] }) {
    this.#logger = deps.logger;
    this.#router = new ListenerRouter({ ...slack, botUserId: deps.identity.botUserId });
    registerListeners(this.#router, deps);
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
    const done: Promise<void> = this.#router
      .dispatch(event.body, async (response?: unknown) => answered(response))
      .catch((error: unknown) => this.#logger.error({ err: error }, 'a Slack listener failed'))
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
