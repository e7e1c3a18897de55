import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { ApprovalWorkflow } from '../../app/approvals.ts';
import type { AnswerTarget } from '../../app/outbox-port.ts';
import type { Choice } from '../../app/reads.ts';
import { OPERATIONS, type WriteOperationId } from '../../domain/operations.ts';
import { PURPOSE_FIELD } from '../../domain/purpose.ts';
import {
  parseWriteCommand,
  type WriteParse,
  type WriteRules,
} from '../../domain/write-commands.ts';
import type { SlackMessage } from '../blocks/format.ts';
import { renderDenied, renderMissingScopes, renderNotCreated } from '../blocks/messages.ts';
import {
  buildNoticeModal,
  buildRequestModal,
  type Option,
  type RequestModalOptions,
} from '../blocks/request-modal.ts';
import { deniedText, renderRequestResult } from '../text/approvals.ts';
import { fieldErrorText } from '../text/commands.ts';
import type { ApprovalDeps } from './deps.ts';
import { openModalThenFill } from './modals.ts';

/** `/pay payout …` and the other write words: a request, or a modal when no fields were typed. */
export async function answerWriteCommand(
  deps: ApprovalDeps,
  command: {
    text: string;
    user_id: string;
    channel_id: string;
    trigger_id: string;
    response_url: string;
  },
  client: WebClient,
): Promise<SlackMessage | undefined> {
  const parsed = parseWriteCommand(command.text, writeRules(deps));
  if (parsed.kind === 'invalid') {
    // Someone who may not request is told so, not how to fix a request they cannot make.
    const decision = await deps.workflow.canRequest(command.user_id);
    if (!decision.allowed) return renderDenied(decision, deps.accessAdmin);
    return renderNotCreated(parsed.errors.map((error) => fieldErrorText(deps.command, error)));
  }
  if (parsed.kind === 'intent') {
    return requestWrite(deps, parsed.intent, command.user_id, command.channel_id, {
      responseUrl: command.response_url,
    });
  }
  await openModalThenFill(deps, client, command.trigger_id, async () => {
    const decision = await deps.workflow.canRequest(command.user_id);
    if (!decision.allowed) {
      return buildNoticeModal(deniedText({ kind: 'not_allowed', decision }, deps.accessAdmin));
    }
    const missing = deps.workflow.missingScopes(parsed);
    if (missing.length > 0) {
      return buildNoticeModal(
        renderMissingScopes(OPERATIONS[parsed.operationId].summary, missing).text,
      );
    }
    return requestModal(deps, parsed, command.channel_id);
  });
  return undefined;
}

/**
 * Stores the request, typed in a command or filled in its form; its approval card and the
 * requester's confirmation go out through the Slack outbox (undefined: nothing to answer here).
 * A refusal is answered at once.
 */
export async function requestWrite(
  deps: ApprovalDeps,
  intent: Parameters<ApprovalWorkflow['request']>[0],
  userId: string,
  channelId: string | undefined,
  answerTo: AnswerTarget | undefined,
  supersedes?: number,
): Promise<SlackMessage | undefined> {
  const result = await deps.workflow.request(intent, userId, channelId, answerTo, supersedes);
  return renderRequestResult(deps, result, intent.operationId);
}

/** What the deployment asks of a write besides its fields, for its command and its form. */
export function writeRules(deps: Pick<ApprovalDeps, 'requirePurpose'>): WriteRules {
  return { requirePurpose: deps.requirePurpose ?? new Set() };
}

/** The request form of a command typed without fields. */
function requestModal(
  deps: ApprovalDeps,
  { operationId, path, purpose }: Extract<WriteParse, { kind: 'modal' }>,
  channelId: string,
): Promise<ModalView> {
  const values = purpose === undefined ? undefined : { [PURPOSE_FIELD]: purpose };
  return requestForm(deps, { operationId, path, values, channelId });
}

/** The request form, its selects filled with choices read from the provider. */
export async function requestForm(
  deps: ApprovalDeps,
  {
    operationId,
    ...form
  }: { operationId: WriteOperationId } & Pick<
    RequestModalOptions,
    'path' | 'values' | 'channelId' | 'supersedes'
  >,
): Promise<ModalView> {
  const choices = await deps.reads.formChoices();
  return buildRequestModal(operationId, {
    wallets: choices.wallets.map(option),
    recipients: choices.recipients.map(option),
    corridors: choices.corridors.map(option),
    ...form,
    purposeRequired: writeRules(deps).requirePurpose.has(operationId),
  });
}

function option({ id, name }: Choice): Option {
  return { value: id, label: name ? `${name} (${id})` : id };
}
