import type { BlockAction, ButtonAction } from '@slack/bolt';
import type { ApprovalWorkflow } from '../../src/app/approvals.ts';
import type { ReadService } from '../../src/app/reads.ts';
import type { RequestQueries } from '../../src/app/request-queries.ts';
import { createLogger } from '../../src/logger.ts';
import type { ApprovalDeps } from '../../src/slack/listeners/deps.ts';
import { CARD } from './workflow.ts';

/**
 * The approval listeners' dependencies around `workflow`, under the command `/payments`; what
 * they log is kept in `lines`. The card buttons' listeners read neither queries nor reads.
 */
export function approvalDeps(workflow: ApprovalWorkflow): ApprovalDeps & { lines: string[] } {
  const lines: string[] = [];
  return {
    workflow,
    queries: {} as RequestQueries,
    reads: {} as ReadService,
    approvalsChannelId: CARD.channelId,
    accessAdmin: '<@U0ADMIN>',
    command: '/payments',
    logger: createLogger({
      level: 'info',
      secrets: [],
      destination: { write: (line) => lines.push(line) },
    }),
    lines,
  };
}

/** `userId`'s click on a button valued `value`, on the approval card at CARD. */
export function buttonClick(
  userId: string,
  value: string,
): { body: BlockAction<ButtonAction>; action: ButtonAction } {
  const action = {
    type: 'button',
    action_id: 'payops.button',
    block_id: 'b',
    value,
  } as ButtonAction;
  const body = {
    type: 'block_actions',
    user: { id: userId },
    channel: { id: CARD.channelId },
    message: { ts: CARD.messageTs },
    trigger_id: 'T0TRIGGER',
    actions: [action],
  } as unknown as BlockAction<ButtonAction>;
  return { body, action };
}
