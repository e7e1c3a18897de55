import { APPROVER_HELP, readCommandHelp, writeCommandHelp } from '../../../app/help.ts';
import type { SlackMessage } from '../../blocks/format.ts';
import { renderDirectoryUnavailable, renderHelp, renderNotAllowed } from '../../blocks/messages.ts';
import { helpLines } from '../../text/commands.ts';
import type { CommandDeps } from './deps.ts';

/** What this person may run: reads, writes to request, approver commands, by role. */
export async function answerHelp(deps: CommandDeps, userId: string): Promise<SlackMessage> {
  const { workflow } = deps.approvals;
  const [reader, requester, approver] = await Promise.all([
    deps.access.check(deps.readers, userId),
    workflow.canRequest(userId),
    workflow.canApprove(userId),
  ]);
  const entries = [
    ...(reader.allowed ? readCommandHelp(deps.reads) : []),
    ...(requester.allowed
      ? writeCommandHelp((id) => workflow.missingScopes({ operationId: id }))
      : []),
    ...(approver.allowed ? APPROVER_HELP : []),
  ];
  if (entries.length > 0) return renderHelp(helpLines(deps.command, entries), deps.command);
  return [reader, requester, approver].some(
    (d) => !d.allowed && d.reason === 'directory_unavailable',
  )
    ? renderDirectoryUnavailable()
    : renderNotAllowed(deps.accessAdmin);
}
