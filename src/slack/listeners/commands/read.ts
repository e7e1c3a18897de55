import type { ReadOutcome, ReadService } from '../../../app/reads.ts';
import type { Command } from '../../../domain/commands.ts';
import { OPERATIONS } from '../../../domain/operations.ts';
import type { SlackMessage } from '../../blocks/format.ts';
import { renderMissingScopes, renderPaymentsError } from '../../blocks/messages.ts';
import { renderAllBalances, renderRead } from '../../blocks/read-result.ts';

/** A read command: the provider's answer, or why there is none. */
export async function answerRead(
  reads: ReadService,
  parsed: Extract<Command, { kind: 'read' | 'all-balances' }>,
): Promise<SlackMessage> {
  if (parsed.kind === 'all-balances') {
    const outcome = await reads.allBalances();
    if (outcome.kind === 'ok') return renderAllBalances(outcome.balances, { total: outcome.total });
    return renderFailure(outcome);
  }
  const outcome = await reads.read(parsed);
  if (outcome.kind === 'ok') {
    return renderRead(outcome.operationId, outcome.body, { requestId: outcome.requestId });
  }
  return renderFailure(outcome);
}

function renderFailure(outcome: Exclude<ReadOutcome, { kind: 'ok' }>): SlackMessage {
  return outcome.kind === 'missing-scopes'
    ? renderMissingScopes(OPERATIONS[outcome.operationId].summary, outcome.missing)
    : renderPaymentsError(outcome.error);
}
