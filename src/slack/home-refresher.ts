import type { HomeView } from '@slack/types';
import { ErrorCode, type WebClient } from '@slack/web-api';
import type { AccessControl, AccessDecision } from '../app/access.ts';
import type { ApprovalWorkflow } from '../app/approvals.ts';
import { readCommandHelp } from '../app/help.ts';
import type { HomeViewersPort } from '../app/home-port.ts';
import type { ReadService } from '../app/reads.ts';
import type { RequestQueries } from '../app/request-queries.ts';
import type { RoleMembers } from '../domain/roles.ts';
import { WakeUp } from '../lib/wake-up.ts';
import type { Logger } from '../logger.ts';
import type { FreezeNotice } from './blocks/approval-card.ts';
import { NO_ROLE_HOME, renderHome, renderNoRoleHome } from './blocks/home.ts';
import { renderDirectoryUnavailable, renderHelp } from './blocks/messages.ts';
import type { LimitedCall, SlackRateLimiter } from './rate-limits.ts';
import { platformErrorOf, TRANSIENT_ERRORS } from './slack-errors.ts';
import { helpLines } from './text/commands.ts';

/**
 * Keeps each Home tab as its owner would see it now. Every process runs one: it turns the
 * changes the store recorded (from any replica) into stale Homes, claims some — one process
 * draws a given Home at a time — and publishes them within Slack's limit for views.publish, a
 * Home at most once per MIN_INTERVAL_MS however busy its requests are.
 */

export interface HomeRefresherDeps {
  homes: HomeViewersPort;
  workflow: ApprovalWorkflow;
  queries: Pick<RequestQueries, 'homeRequests'>;
  access: AccessControl;
  readers: RoleMembers;
  reads: ReadService;
  command: string;
  accessAdmin: string;
  /** The kill switch as every pending card shows it. */
  freeze(): Promise<FreezeNotice | undefined>;
  /** A WebClient that neither retries nor waits out 429s itself (the outbox's). */
  client: WebClient;
  limiter: SlackRateLimiter;
  logger: Logger;
  /** The workflow's clock: what has expired. */
  now?: () => Date;
}

const POLL_MS = 1_000;
const MIN_INTERVAL_MS = 2_000;
const CLAIM_LEASE_MS = 15_000;
const CHANGES_PER_PASS = 1_000;
const HOMES_PER_PASS = 20;
const PUBLISH: readonly LimitedCall[] = [{ method: 'views.publish' }];
/** Refusals on the person's side (any other is about payops's view, so logged as an error). */
const FOR_GOOD = new Set(['not_enabled', 'user_not_found', 'account_inactive', 'user_disabled']);

export class HomeRefresher {
  readonly #deps: HomeRefresherDeps;
  readonly #now: () => Date;
  #running = false;
  #loop: Promise<void> = Promise.resolve();
  readonly #wakeUp = new WakeUp();

  constructor(deps: HomeRefresherDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#wakeUp.wake();
    await this.#loop;
  }

  /** Something changed: look now rather than at the next poll. */
  nudge(): void {
    this.#wakeUp.wake();
  }

  /**
   * `userId` opened their Home (`shown`: the Home Slack shows them, if any): it is drawn in its
   * turn, and kept current from now on. A person with no role who already sees their one static
   * Home is left as they are: nothing stored, nothing drawn.
   */
  async opened(userId: string, shown?: { callback_id?: string }): Promise<void> {
    const roles = await this.#rolesOf(userId);
    if (shown?.callback_id === NO_ROLE_HOME && hasNoRole(roles)) return;
    await this.#deps.homes.opened(userId, roles.approver.allowed);
    this.nudge();
  }

  /** One pass: the changes recorded so far marked, then the stale Homes claimed and drawn. */
  async refreshDue(): Promise<number> {
    const { homes } = this.#deps;
    while ((await homes.absorbChanges(CHANGES_PER_PASS)) === CHANGES_PER_PASS);
    const users = await homes.claimStale(HOMES_PER_PASS, MIN_INTERVAL_MS, CLAIM_LEASE_MS);
    await Promise.all(users.map((userId) => this.#publish(userId)));
    return users.length;
  }

  async #run(): Promise<void> {
    while (this.#running) {
      await this.refreshDue().catch((error) =>
        this.#deps.logger.error({ err: error }, 'Home tabs could not be refreshed; trying again'),
      );
      if (!this.#running) break;
      await this.#wakeUp.sleep(POLL_MS);
    }
  }

  async #publish(userId: string): Promise<void> {
    const { homes, limiter, client, logger } = this.#deps;
    try {
      if ((await limiter.take(PUBLISH)) > 0) return await homes.release(userId, false);
      const { view, isApprover } = await this.homeOf(userId);
      await client.views.publish({ user_id: userId, view });
      // The static Home never changes: not drawn again unless they open it with a role.
      if (view.callback_id === NO_ROLE_HOME) await homes.forget(userId);
      else await homes.published(userId, isApprover);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const slackError = platformErrorOf(error);
      // Refused for what it is, not for Slack's trouble: trying every few seconds would only
      // spend the workspace's views.publish budget. It is drawn again when they open it.
      if (slackError !== undefined && !TRANSIENT_ERRORS.has(slackError)) {
        logger[FOR_GOOD.has(slackError) ? 'warn' : 'error'](
          { userId, slackError },
          'Slack refuses this Home tab; drawn again when opened',
        );
        await homes.forget(userId).catch(() => undefined);
        return;
      }
      if (code === ErrorCode.RateLimitedError) {
        const ms = Math.max(1, (error as { retryAfter: number }).retryAfter) * 1000;
        await limiter.block(PUBLISH, ms).catch(() => undefined);
      }
      logger.warn({ err: error, userId }, 'a Home tab could not be drawn; tried again soon');
      await homes.release(userId, true).catch(() => undefined);
    }
  }

  /** What `userId`'s Home shows now, and whether they are an approver. */
  async homeOf(userId: string): Promise<{ view: HomeView; isApprover: boolean }> {
    const now = this.#now();
    const roles = await this.#rolesOf(userId);
    const { approver, requester, reader } = roles;
    const isApprover = approver.allowed;
    if (hasNoRole(roles)) return { view: renderNoRoleHome(this.#deps.accessAdmin), isApprover };
    if (!Object.values(roles).some((role) => role.allowed)) {
      return { view: { type: 'home', blocks: renderDirectoryUnavailable().blocks }, isApprover };
    }
    const [{ queue, own, decisions }, freeze] = await Promise.all([
      this.#deps.queries.homeRequests(userId, isApprover, now),
      this.#deps.freeze(),
    ]);
    const view = renderHome({
      queue,
      own: requester.allowed || own.length > 0 ? own : undefined,
      decisions,
      freeze,
      help: reader.allowed
        ? renderHelp(
            helpLines(this.#deps.command, readCommandHelp(this.#deps.reads)),
            this.#deps.command,
          )
        : undefined,
      command: this.#deps.command,
      now,
    });
    return { view, isApprover };
  }

  async #rolesOf(userId: string): Promise<Roles> {
    const { workflow, access, readers } = this.#deps;
    const [approver, requester, reader] = await Promise.all([
      workflow.canApprove(userId),
      workflow.canRequest(userId),
      access.check(readers, userId),
    ]);
    return { approver, requester, reader };
  }
}

type Roles = Record<'approver' | 'requester' | 'reader', AccessDecision>;

/** Refused every role for what they are, not because Slack's directory could not be read. */
function hasNoRole(roles: Roles): boolean {
  return Object.values(roles).every(
    (role) => !role.allowed && role.reason !== 'directory_unavailable',
  );
}
