import type { WebClient } from '@slack/web-api';
import { APPROVER_WORDS, type ApproverWord } from '../../../app/help.ts';
import { checkFreeText, cutFreeText } from '../../../domain/free-text.ts';
import { notice, type SlackMessage } from '../../blocks/format.ts';
import { noSuchRequestText, renderDenied, renderNotAllowed } from '../../blocks/messages.ts';
import { renderRequestDetail, renderRequestList } from '../../blocks/request-views.ts';
import { refusalText } from '../../text/approvals.ts';
import {
  auditAskedText,
  auditAttachedText,
  auditFileTitle,
  freeTextProblemText,
  freezeText,
  resolvedText,
  sayWhichRequestText,
  sayWhichResolveText,
} from '../../text/commands.ts';
import type { ApprovalDeps } from '../deps.ts';

export { APPROVER_WORDS };

/** The freeze notice on every pending card shows it whole. */
const MAX_FREEZE_REASON = 300;

export function isApproverWord(word: string): word is ApproverWord {
  return (APPROVER_WORDS as readonly string[]).includes(word);
}

/**
 * Approvers only: the kill switch, pending requests, one request's history, settling an unknown
 * outcome by hand, the audit CSV. Checked at the moment of each command.
 */
export async function answerApproverCommand(
  deps: ApprovalDeps,
  command: string,
  word: ApproverWord,
  rest: string,
  typed: { user_id: string; channel_id: string },
  client: WebClient,
): Promise<SlackMessage> {
  const decision = await deps.workflow.canApprove(typed.user_id);
  if (!decision.allowed) return renderDenied(decision, deps.accessAdmin);
  switch (word) {
    case 'freeze':
    case 'unfreeze': {
      const frozen = word === 'freeze';
      // The kill switch never fails on its reason: what cannot be kept is dropped or cut.
      const reason = cutFreeText(rest, MAX_FREEZE_REASON);
      await deps.workflow.setFreeze(frozen, typed.user_id, reason.text || undefined);
      return notice(
        freezeText(command, frozen, reason.text && { ...reason, max: MAX_FREEZE_REASON }),
      );
    }
    case 'requests': {
      const { requests, total } = await deps.queries.pending(20);
      return renderRequestList(requests, total, command);
    }
    case 'request': {
      const id = /^#?(\d{1,15})$/.exec(rest.trim())?.[1];
      if (!id) return notice(sayWhichRequestText(command));
      const detail = await deps.queries.detail(Number(id));
      if (!detail) return notice(noSuchRequestText(id));
      return renderRequestDetail(detail.request, detail.history, command, detail.deliveries);
    }
    case 'resolve': {
      const parsed = /^#?(\d{1,15})\s+(executed|not-executed)\s+(\S[\s\S]*)$/i.exec(rest.trim());
      const [, id, verdict = '', given = ''] = parsed ?? [];
      const note = checkFreeText(given);
      if ('error' in note) return notice(freeTextProblemText('note', note.error));
      if (!id || !note.text) return notice(sayWhichResolveText(command));
      const executed = verdict.toLowerCase() === 'executed';
      const result = await deps.workflow.resolve(Number(id), typed.user_id, executed, note.text);
      if (result.kind === 'not_found') return notice(noSuchRequestText(id));
      if (result.kind === 'not_allowed')
        return renderNotAllowed(deps.accessAdmin, result.decision.role);
      if (result.kind === 'refused') return notice(refusalText(result, command));
      return notice(resolvedText(id, executed));
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
          title: auditFileTitle(file),
          content: file.csv,
          initial_comment: part === 1 ? auditAskedText(typed.user_id) : undefined,
        });
      }
      return notice(auditAttachedText({ events, files: part, channelId: deps.approvalsChannelId }));
    }
  }
}
