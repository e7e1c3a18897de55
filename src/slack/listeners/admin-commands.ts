import type { WebClient } from '@slack/web-api';
import type { ApprovalWorkflow } from '../../app/approvals.ts';
import type { RequestQueries } from '../../app/request-queries.ts';
import { checkFreeText, cutFreeText } from '../../domain/free-text.ts';
import { freeText, notice, type SlackMessage } from '../blocks/format.ts';
import { renderDirectoryUnavailable, renderNotAllowed } from '../blocks/messages.ts';
import { renderRequestDetail, renderRequestList } from '../blocks/request-views.ts';

/** `/pay` words about the approval flow itself, rather than the provider. */
export const ADMIN_WORDS = [
  'freeze',
  'unfreeze',
  'requests',
  'request',
  'resolve',
  'audit',
] as const;
export type AdminWord = (typeof ADMIN_WORDS)[number];

/** The freeze notice on every pending card shows it whole. */
const MAX_FREEZE_REASON = 300;

export function isAdminWord(word: string): word is AdminWord {
  return (ADMIN_WORDS as readonly string[]).includes(word);
}

export interface AdminDeps {
  workflow: ApprovalWorkflow;
  queries: RequestQueries;
  approvalsChannelId: string;
  accessAdmin: string;
}

/**
 * Approvers only: the kill switch, pending requests, one request's history, settling an unknown
 * outcome by hand, the audit CSV. Checked at the moment of each command.
 */
export async function answerAdminCommand(
  deps: AdminDeps,
  word: AdminWord,
  rest: string,
  command: { user_id: string; channel_id: string },
  client: WebClient,
): Promise<SlackMessage> {
  const decision = await deps.workflow.canApprove(command.user_id);
  if (!decision.allowed) {
    return decision.reason === 'directory_unavailable'
      ? renderDirectoryUnavailable()
      : renderNotAllowed(deps.accessAdmin, decision.role);
  }
  switch (word) {
    case 'freeze':
    case 'unfreeze': {
      const frozen = word === 'freeze';
      // The kill switch never fails on its reason: what cannot be kept is dropped or cut.
      const reason = cutFreeText(rest, MAX_FREEZE_REASON);
      await deps.workflow.setFreeze(frozen, command.user_id, reason.text || undefined);
      const shown = reason.text
        ? ` (${freeText(reason.text, MAX_FREEZE_REASON)}${reason.cut ? `; cut to ${MAX_FREEZE_REASON} characters` : ''})`
        : '';
      return notice(
        frozen
          ? `Payments are frozen${shown}: no write will be sent to the provider (reads go on). Pending requests stay pending; an approval that would execute is refused until \`/pay unfreeze\`.`
          : 'Payments are unfrozen. Pending requests can be approved again.',
      );
    }
    case 'requests': {
      const { requests, total } = await deps.queries.pending(20);
      return renderRequestList(requests, total);
    }
    case 'request': {
      const id = /^#?(\d{1,15})$/.exec(rest.trim())?.[1];
      if (!id) return notice('Say which request: `/pay request 12`.');
      const detail = await deps.queries.detail(Number(id));
      if (!detail) return notice(`Request #${id} does not exist.`);
      return renderRequestDetail(detail.request, detail.history, detail.deliveries);
    }
    case 'resolve': {
      const parsed = /^#?(\d{1,15})\s+(executed|not-executed)\s+(\S[\s\S]*)$/i.exec(rest.trim());
      const [, id, verdict = '', typed = ''] = parsed ?? [];
      const note = checkFreeText(typed, 'note');
      if ('error' in note) return notice(note.error);
      if (!id || !note.text) {
        return notice(
          'Say which request, what you found at the provider and what you checked: `/pay resolve 12 executed payout po_123 is in the dashboard` or `/pay resolve 12 not-executed no payout to this recipient since the request`.',
        );
      }
      const executed = verdict.toLowerCase() === 'executed';
      const result = await deps.workflow.resolve(Number(id), command.user_id, executed, note.text);
      if (result.kind === 'not_found') return notice(`Request #${id} does not exist.`);
      if (result.kind === 'not_allowed')
        return renderNotAllowed(deps.accessAdmin, result.decision.role);
      if (result.kind === 'refused') return notice(result.reason);
      return notice(
        executed
          ? `Request #${id} is recorded as executed, on your word. Its message and the audit log say so.`
          : `Request #${id} is recorded as not executed, on your word: the same write may be requested again. Its message and the audit log say so.`,
      );
    }
    case 'audit': {
      // The audit log names every request and approver: it goes to the approvals channel only,
      // wherever the command was typed.
      const day = new Date().toISOString().slice(0, 10);
      let events = 0;
      let part = 0;
      for await (const file of deps.queries.auditFiles()) {
        part = file.part;
        events += file.events;
        await client.files.uploadV2({
          channel_id: deps.approvalsChannelId,
          filename: `payops-audit-${day}-part-${part}.csv`,
          title: `payops audit log, part ${part} (events ${file.firstId} to ${file.lastId})`,
          content: file.csv,
          initial_comment:
            part === 1 ? `<@${command.user_id}> asked for the audit log.` : undefined,
        });
      }
      const files = part === 1 ? 'a CSV' : `${part} CSV files, oldest first`;
      return notice(
        `The audit log (${events} events, the newest included) is attached as ${files} in <#${deps.approvalsChannelId}>.`,
      );
    }
  }
}
