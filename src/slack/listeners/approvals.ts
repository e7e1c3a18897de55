import type { App, BlockAction, ButtonAction, RespondFn } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import type { ApprovalWorkflow, ApproveResult, ClickOrigin, Denied } from '../../app/approvals.ts';
import type { AnswerTarget } from '../../app/outbox-port.ts';
import type { Choice, ReadService } from '../../app/reads.ts';
import type { RequestQueries } from '../../app/request-queries.ts';
import { checkFreeText } from '../../domain/free-text.ts';
import { OPERATIONS, type WriteOperationId } from '../../domain/operations.ts';
import { parseWriteCommand, validateWriteFields } from '../../domain/write-commands.ts';
import type { Logger } from '../../logger.ts';
import { answerPrivately } from '../answer-privately.ts';
import { checksText, statusWords } from '../blocks/approval-card.ts';
import { freeText, notice, type SlackMessage } from '../blocks/format.ts';
import { parseHomeButton } from '../blocks/home.ts';
import {
  heldText,
  interactionFailedText,
  NOT_A_REQUEST_BUTTON,
  noSuchRequestText,
  renderDenied,
  renderMissingScopes,
  renderNotCreated,
  renderRequestNotStored,
} from '../blocks/messages.ts';
import {
  buildNoticeModal,
  buildRejectReasonModal,
  buildRequestModal,
  type Option,
  parseModalMetadata,
  readModalValues,
} from '../blocks/request-modal.ts';
import { ACTION, parseApproveButton, requestIdOf, VIEW } from '../interaction-ids.ts';
import { fieldErrorText, freeTextProblemText } from '../text/commands.ts';
import { guarded } from './guarded.ts';

/**
 * How long a form's submission waits for its outcome to answer inside the ack (Slack gives
 * 3 s, the hand-over from the ingress and the network take some): past it the form closes.
 */
const FORM_ANSWER_WITHIN_MS = 2_000;

export interface ApprovalDeps {
  workflow: ApprovalWorkflow;
  /** What approvers look up: pending requests, one request's history, the audit log. */
  queries: RequestQueries;
  reads: ReadService;
  /** The approvals channel: approval cards and the audit CSV go there only. */
  approvalsChannelId: string;
  accessAdmin: string;
  /** The slash command as this deployment names it (`PAYOPS_COMMAND`). */
  command: string;
  logger: Logger;
}

/**
 * Buttons and modals of the approval flow. Every click is acknowledged first; the decision is
 * the workflow's, taken at the moment of the click; Slack shows what the store now says.
 */
export function registerApprovals(app: App, deps: ApprovalDeps): void {
  app.action<BlockAction<ButtonAction>>(ACTION.approve, async ({ ack, body, action, respond }) => {
    await ack();
    await clicked(deps, respond, () => approve(deps, body, action, respond));
  });

  app.action<BlockAction<ButtonAction>>(
    ACTION.reject,
    async ({ ack, body, action, client, respond }) => {
      await ack();
      await clicked(deps, respond, async () => {
        const id = requestIdOf(action.value);
        if (id === undefined) return tell(deps.logger, respond, NOT_A_REQUEST_BUTTON);
        await openRejectForm(deps, client, body, id, originOf(body));
      });
    },
  );

  // A Home tab has no response_url: what a click there did is told in a modal.
  app.action<BlockAction<ButtonAction>>(
    ACTION.homeApprove,
    async ({ ack, body, action, client }) => {
      await ack();
      await answeredInModal(deps, client, body.trigger_id, async () => {
        const button = parseHomeButton(action.value);
        if (!button) return NOT_A_REQUEST_BUTTON;
        const result = await deps.workflow.approve(button.id, body.user.id, {
          home: button.shown,
        });
        if (result.kind !== 'executed') return approvalAnswer(deps, button.id, result);
        return `Your approval of #${button.id} completed it: ${statusWords(result.request)}. Its approval message and your Home show what follows.`;
      });
    },
  );

  app.action<BlockAction<ButtonAction>>(
    ACTION.homeReject,
    async ({ ack, body, action, client }) => {
      await ack();
      const button = parseHomeButton(action.value);
      if (!button) {
        await answeredInModal(deps, client, body.trigger_id, async () => NOT_A_REQUEST_BUTTON);
        return;
      }
      await openRejectForm(deps, client, body, button.id, { home: button.shown }).catch((error) =>
        deps.logger.error({ err: error, requestId: button.id }, 'the reject form failed to open'),
      );
    },
  );

  app.action<BlockAction<ButtonAction>>(ACTION.cancel, async ({ ack, body, action, respond }) => {
    await ack();
    await clicked(deps, respond, async () => {
      const id = requestIdOf(action.value);
      if (id === undefined) return tell(deps.logger, respond, NOT_A_REQUEST_BUTTON);
      const result = await deps.workflow.cancel(id, body.user.id);
      if (result.kind === 'done') {
        return tell(deps.logger, respond, `Request #${id} is cancelled; nothing was sent.`);
      }
      return tell(
        deps.logger,
        respond,
        result.kind === 'refused' ? result.reason : noSuchRequestText(id),
      );
    });
  });

  app.view(VIEW.rejectReason, async ({ ack, view, body, client }) => {
    const errors = (reason: string) => ack({ response_action: 'errors', errors: { reason } });
    const form = rejectFormOf(view.private_metadata);
    const reason = checkFreeText(view.state.values.reason?.reason?.value ?? '');
    if (!form) return errors('This form is not for a known request.');
    if ('error' in reason) return errors(freeTextProblemText('reason', reason.error));
    if (!reason.text) return errors('Say why, so the requester can fix it.');
    const decided = deps.workflow.reject(form.id, body.user.id, reason.text, form.origin).then(
      (result): RejectionAnswer => rejectionAnswer(deps, form.id, result),
      (error: unknown): RejectionAnswer => {
        deps.logger.error({ err: error, requestId: form.id }, 'rejecting failed inside payops');
        return {
          refusal: 'payops could not record the rejection just now; nothing changed. Try again.',
        };
      },
    );
    // A refusal is best shown in the form, but only while Slack still waits for the answer.
    let answerInTime: NodeJS.Timeout | undefined;
    const early = await Promise.race([
      decided,
      new Promise<undefined>((resolve) => {
        answerInTime = setTimeout(() => resolve(undefined), FORM_ANSWER_WITHIN_MS);
      }),
    ]);
    clearTimeout(answerInTime);
    if (early?.refusal !== undefined) return errors(early.refusal);
    await ack();
    // Past the deadline the form is closed; its outcome comes as a message instead: in the
    // channel of the Reject button (the approval message's), or from a Home tab, which has
    // none, as a direct message from payops.
    const answer = early ?? (await decided);
    const channelId = 'channelId' in form.origin ? form.origin.channelId : undefined;
    if (early === undefined && ('home' in form.origin || channelId)) {
      const text = answer.refusal ?? `Request #${form.id} is rejected; nothing was sent.`;
      await answerPrivately({ client, channelId, userId: body.user.id }, { text }, deps.logger);
    }
  });

  app.view(VIEW.request, async ({ ack, view, body, client }) => {
    const metadata = parseModalMetadata(view.private_metadata);
    if (!metadata) return ack({ response_action: 'errors', errors: {} });
    const validated = validateWriteFields(
      metadata.operationId,
      metadata.path,
      readModalValues(view.state),
    );
    if ('errors' in validated) {
      const errors: Record<string, string> = {};
      for (const error of validated.errors) {
        const field =
          error.field && OPERATIONS[metadata.operationId].bodyFields.includes(error.field)
            ? error.field
            : OPERATIONS[metadata.operationId].bodyFields[0];
        const message = fieldErrorText(deps.command, error);
        if (field) errors[field] = errors[field] ? `${errors[field]} ${message}` : message;
      }
      return ack({ response_action: 'errors', errors });
    }
    await ack();
    const channelId = channelOfMetadata(view.private_metadata);
    const answerTo = channelId ? { channelId, userId: body.user.id } : undefined;
    const answer = await guarded(
      deps.logger,
      () => createRequest(deps, validated.intent, body.user.id, channelId, answerTo),
      renderRequestNotStored,
    );
    if (answer && channelId) {
      await answerPrivately({ client, channelId, userId: body.user.id }, answer, deps.logger);
    }
  });
}

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
  const parsed = parseWriteCommand(command.text);
  if (parsed.kind === 'invalid') {
    // Someone who may not request is told so, not how to fix a request they cannot make.
    const decision = await deps.workflow.canRequest(command.user_id);
    if (!decision.allowed)
      return deniedMessage({ kind: 'not_allowed', decision }, deps.accessAdmin);
    return renderNotCreated(parsed.errors.map((e) => fieldErrorText(deps.command, e)));
  }
  if (parsed.kind === 'intent') {
    return createRequest(deps, parsed.intent, command.user_id, command.channel_id, {
      responseUrl: command.response_url,
    });
  }
  await openModalThenFill(client, command.trigger_id, async () => {
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
    return requestModal(deps, parsed.operationId, parsed.path, command.channel_id);
  });
  return undefined;
}

/**
 * Stores the request; its approval card and the requester's confirmation go out through the
 * Slack outbox (undefined: nothing to answer here). A refusal is answered at once.
 */
async function createRequest(
  deps: ApprovalDeps,
  intent: Parameters<ApprovalWorkflow['request']>[0],
  userId: string,
  channelId: string | undefined,
  answerTo: AnswerTarget | undefined,
): Promise<SlackMessage | undefined> {
  const result = await deps.workflow.request(intent, userId, channelId, answerTo);
  if (result.kind === 'not_allowed') return deniedMessage(result, deps.accessAdmin);
  if (result.kind === 'missing-scopes') {
    return renderMissingScopes(OPERATIONS[intent.operationId].summary, result.missing);
  }
  if (result.kind === 'held') return notice(heldText('Not requested', result.twin));
  if (result.kind === 'refused') {
    return notice(`:no_entry: *Not requested, nothing stored:* ${freeText(result.reason, 600)}.`, [
      checksText(result.checks),
    ]);
  }
  return undefined;
}

/**
 * Opens a "one moment" modal at once (a trigger_id lives about 3 s), then replaces it with
 * `fill`'s view, so a slow permission check (Slack's directory) or a slow provider cannot expire
 * the trigger.
 */
async function openModalThenFill(
  client: WebClient,
  triggerId: string,
  fill: () => Promise<ModalView>,
): Promise<void> {
  const opened = await client.views.open({
    trigger_id: triggerId,
    view: buildNoticeModal('One moment…'),
  });
  const viewId = opened.view?.id as string;
  let view: ModalView;
  try {
    view = await fill();
  } catch (error) {
    // Not left saying "one moment" for ever; the caller logs the failure with a reference.
    await client.views
      .update({
        view_id: viewId,
        view: buildNoticeModal(
          'Something failed inside payops: nothing was done. Close this and try again.',
        ),
      })
      .catch(() => undefined);
    throw error;
  }
  await client.views.update({ view_id: viewId, view });
}

/** The request form, its selects filled with choices read from the provider. */
async function requestModal(
  deps: ApprovalDeps,
  operationId: WriteOperationId,
  path: Record<string, string>,
  channelId: string,
): Promise<ModalView> {
  const choices = await deps.reads.formChoices();
  const view = buildRequestModal(operationId, {
    wallets: choices.wallets.map(option),
    recipients: choices.recipients.map(option),
    corridors: choices.corridors.map(option),
    path,
  });
  view.private_metadata = JSON.stringify({
    ...JSON.parse(view.private_metadata ?? '{}'),
    channelId,
  });
  return view;
}

function option({ id, name }: Choice): Option {
  return { value: id, label: name ? `${name} (${id})` : id };
}

function channelOfMetadata(privateMetadata: string): string | undefined {
  try {
    const channelId = (JSON.parse(privateMetadata) as { channelId?: unknown }).channelId;
    return typeof channelId === 'string' && /^[CGD][A-Z0-9]+$/.test(channelId)
      ? channelId
      : undefined;
  } catch {
    return undefined;
  }
}

/** The reject form's request and where its Reject button was clicked. */
function rejectFormOf(privateMetadata: string): { id: number; origin: ClickOrigin } | undefined {
  try {
    const parsed = JSON.parse(privateMetadata) as Record<string, unknown>;
    const id = requestIdOf(String(parsed.id));
    if (id === undefined) return undefined;
    if (parsed.home !== undefined) {
      const home = parseHomeButton(JSON.stringify({ ...(parsed.home as object), id }));
      return home && { id, origin: { home: home.shown } };
    }
    const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
    return { id, origin: { channelId: text(parsed.channelId), messageTs: text(parsed.messageTs) } };
  } catch {
    return undefined;
  }
}

/**
 * Opens the form asking a rejecting approver why, once their permission is checked. The click's
 * origin travels with the form; the workflow checks it when the reason comes.
 */
function openRejectForm(
  deps: ApprovalDeps,
  client: WebClient,
  body: BlockAction,
  id: number,
  origin: ClickOrigin,
): Promise<void> {
  return openModalThenFill(client, body.trigger_id, async () => {
    const decision = await deps.workflow.canApprove(body.user.id);
    if (!decision.allowed) {
      return buildNoticeModal(deniedText({ kind: 'not_allowed', decision }, deps.accessAdmin));
    }
    const view = buildRejectReasonModal(id);
    view.private_metadata = JSON.stringify({ id, ...origin });
    return view;
  });
}

/**
 * A click whose answer is a modal (a Home tab's): "one moment" at once, then `answer`'s text. A
 * failure inside payops is logged with a reference the modal shows.
 */
async function answeredInModal(
  deps: ApprovalDeps,
  client: WebClient,
  triggerId: string,
  answer: () => Promise<string>,
): Promise<void> {
  await openModalThenFill(client, triggerId, async () =>
    buildNoticeModal(await guarded(deps.logger, answer, interactionFailedText)),
  ).catch((error) => deps.logger.warn({ err: error }, 'could not show the answer to a Home click'));
}

/** A rejection's outcome: why nothing changed, if it did not. */
interface RejectionAnswer {
  refusal?: string;
}

function rejectionAnswer(
  deps: ApprovalDeps,
  id: number,
  result: Awaited<ReturnType<ApprovalWorkflow['reject']>>,
): RejectionAnswer {
  if (result.kind === 'done') return {};
  return {
    refusal:
      result.kind === 'refused'
        ? result.reason
        : result.kind === 'not_found'
          ? noSuchRequestText(id)
          : deniedText(result, deps.accessAdmin),
  };
}

function originOf(body: BlockAction): {
  channelId: string | undefined;
  messageTs: string | undefined;
} {
  return {
    channelId: body.channel?.id ?? body.container?.channel_id,
    messageTs: body.message?.ts ?? body.container?.message_ts,
  };
}

function deniedText(result: Denied, accessAdmin: string): string {
  return deniedMessage(result, accessAdmin).text;
}

function deniedMessage(result: Denied, accessAdmin: string): SlackMessage {
  return renderDenied(result.decision, accessAdmin);
}

/** An ephemeral note to the person who clicked; the approval message itself is not touched. */
function tell(logger: Logger, respond: RespondFn, text: string): Promise<void> {
  return answerPrivately(respond, { text }, logger);
}

/** An click's work, its failure told to the person who clicked with a reference. */
function clicked(deps: ApprovalDeps, respond: RespondFn, work: () => Promise<void>): Promise<void> {
  return guarded(deps.logger, work, (reference) =>
    tell(deps.logger, respond, interactionFailedText(reference)),
  );
}

async function approve(
  deps: ApprovalDeps,
  body: BlockAction<ButtonAction>,
  action: ButtonAction,
  respond: RespondFn,
): Promise<void> {
  const button = parseApproveButton(action.value);
  if (!button) return tell(deps.logger, respond, NOT_A_REQUEST_BUTTON);
  const { id, fingerprint } = button;
  const result = await deps.workflow.approve(id, body.user.id, { ...originOf(body), fingerprint });
  // An executed request is told on its card and in the requester's thread, through the outbox.
  if (result.kind !== 'executed')
    await tell(deps.logger, respond, approvalAnswer(deps, id, result));
}

/** What the approver is told of a click that did not execute the request. */
function approvalAnswer(
  deps: ApprovalDeps,
  id: number,
  result: Exclude<ApproveResult, { kind: 'executed' }>,
): string {
  switch (result.kind) {
    case 'not_allowed':
      return deniedText(result, deps.accessAdmin);
    case 'not_found':
      return noSuchRequestText(id);
    case 'refused':
      return result.reason;
    case 'held':
      return heldText(`Your approval of #${id} was not counted (it stays pending)`, result.twin);
    case 'frozen':
      return `Payments are frozen (${result.freeze.reason ? freeText(result.freeze.reason, 300) : 'no reason given'}): your approval was not counted and #${id} stays pending. Approve it again after \`/pay unfreeze\`.`;
    case 'recorded':
      return `Your approval of #${id} is counted: ${result.request.approvals.length} of ${result.request.requiredApprovals}.`;
  }
}
