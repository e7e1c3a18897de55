import { randomUUID } from 'node:crypto';
import type { App, SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import type { AccessControl } from '../../app/access.ts';
import { APPROVER_HELP, readCommandHelp, writeCommandHelp } from '../../app/help.ts';
import type { ReadService } from '../../app/reads.ts';
import { decodeSlackText } from '../../domain/command-text.ts';
import { closest, parseCommand, READ_COMMAND_WORDS } from '../../domain/commands.ts';
import { OPERATIONS } from '../../domain/operations.ts';
import type { RoleMembers } from '../../domain/roles.ts';
import { isWriteCommandWord, WRITE_COMMAND_WORDS } from '../../domain/write-commands.ts';
import type { Logger } from '../../logger.ts';
import {
  renderDirectoryUnavailable,
  renderHelp,
  renderInternalError,
  renderInvalid,
  renderMissingScopes,
  renderNotAllowed,
  renderPaymentsError,
  renderUnknown,
  renderWrongChannel,
} from '../blocks/messages.ts';
import { renderAllBalances, renderRead } from '../blocks/read-result.ts';
import { ADMIN_WORDS, answerAdminCommand, isAdminWord } from './admin-commands.ts';
import { type ApprovalDeps, answerWriteCommand } from './approvals.ts';
import { answerPrivately } from './private-answer.ts';

export interface CommandDeps {
  command: string;
  readers: RoleMembers;
  channels: ReadonlySet<string> | undefined;
  accessAdmin: string;
  access: AccessControl;
  reads: ReadService;
  logger: Logger;
  approvals: ApprovalDeps;
}

type Answer = { text: string; blocks: unknown[] };

/** Every word `/pay` knows, for suggesting the closest one to a typo. */
const ALL_WORDS = [...READ_COMMAND_WORDS, ...WRITE_COMMAND_WORDS, ...ADMIN_WORDS];

/**
 * `/pay …`: acknowledged at once with an empty body, then answered through `respond`
 * (the command's response_url), so a slow provider never makes Slack time out.
 */
export function registerCommands(app: App, deps: CommandDeps): void {
  app.command(deps.command, async ({ ack, command, respond, client }) => {
    await ack();
    // Merged into a line only if one is logged: a child logger per command was a tenth of the
    // engine's allocations under load.
    const context = { userId: command.user_id, channelId: command.channel_id };
    let answer: Answer | undefined;
    try {
      answer = await answerCommand(deps, command, client);
    } catch (error) {
      const reference = randomUUID().slice(0, 8);
      deps.logger.error({ err: error, reference, ...context }, 'command failed inside payops');
      answer = renderInternalError(reference);
    }
    if (answer) await answerPrivately(respond, answer, deps.logger, context);
  });
}

/** `undefined` when the answer is a modal rather than a message. */
async function answerCommand(
  deps: CommandDeps,
  command: SlashCommand,
  client: WebClient,
): Promise<Answer | undefined> {
  if (deps.channels && !deps.channels.has(command.channel_id)) {
    return renderWrongChannel([...deps.channels]);
  }
  const text = decodeSlackText(command.text ?? '');
  const [word = '', rest = ''] = splitFirstWord(text);
  // Writes check requesters, admin words approvers; each in its own module, at this moment.
  if (isWriteCommandWord(word))
    return answerWriteCommand(deps.approvals, { ...command, text }, client);
  if (isAdminWord(word)) return answerAdminCommand(deps.approvals, word, rest, command, client);
  const parsed = parseCommand(text);
  if (parsed.kind === 'help') return answerHelp(deps, command.user_id);
  const access = await deps.access.check(deps.readers, command.user_id);
  if (!access.allowed) {
    return access.reason === 'directory_unavailable'
      ? renderDirectoryUnavailable()
      : renderNotAllowed(deps.accessAdmin);
  }
  switch (parsed.kind) {
    case 'invalid':
      return renderInvalid(parsed.message, deps.command);
    case 'unknown':
      return renderUnknown(parsed.word, closest(parsed.word, ALL_WORDS), deps.command);
    case 'all-balances': {
      const outcome = await deps.reads.allBalances();
      if (outcome.kind === 'ok')
        return renderAllBalances(outcome.balances, { total: outcome.total });
      return renderFailure(outcome);
    }
    case 'read': {
      const outcome = await deps.reads.read(parsed);
      if (outcome.kind === 'ok') {
        return renderRead(outcome.operationId, outcome.body, { requestId: outcome.requestId });
      }
      return renderFailure(outcome);
    }
  }
}

/** What this person may run: reads, writes to request, approver commands, by role. */
async function answerHelp(deps: CommandDeps, userId: string): Promise<Answer> {
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
  if (entries.length > 0) return renderHelp(entries, deps.command);
  return [reader, requester, approver].some(
    (d) => !d.allowed && d.reason === 'directory_unavailable',
  )
    ? renderDirectoryUnavailable()
    : renderNotAllowed(deps.accessAdmin);
}

function renderFailure(
  outcome: Exclude<Awaited<ReturnType<ReadService['read']>>, { kind: 'ok' }>,
): Answer {
  return outcome.kind === 'missing-scopes'
    ? renderMissingScopes(OPERATIONS[outcome.operationId].summary, outcome.missing)
    : renderPaymentsError(outcome.error);
}

/** The first word, lower-cased, and the text after it. */
function splitFirstWord(text: string): [string, string] {
  const match = /^\s*(\S+)\s*([\s\S]*)$/.exec(text);
  return match ? [(match[1] as string).toLowerCase(), match[2] as string] : ['', ''];
}
