import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs, SlashCommand } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { decodeSlackText } from '../../../domain/command-text.ts';
import { closest, parseCommand, READ_COMMAND_WORDS } from '../../../domain/commands.ts';
import { isWriteCommandWord, WRITE_COMMAND_WORDS } from '../../../domain/write-commands.ts';
import { answerPrivately } from '../../answer-privately.ts';
import type { SlackMessage } from '../../blocks/format.ts';
import {
  renderDenied,
  renderInternalError,
  renderInvalid,
  renderUnknown,
  renderWrongChannel,
} from '../../blocks/messages.ts';
import { readProblemText } from '../../text/commands.ts';
import { guarded } from '../guarded.ts';
import { answerWriteCommand } from '../write-request.ts';
import { APPROVER_WORDS, answerApproverCommand, isApproverWord } from './approver.ts';
import type { CommandDeps } from './deps.ts';
import { answerHelp } from './help.ts';
import { answerRead } from './read.ts';
import { noRoleRefusal } from './refusal.ts';

/** Every word the command knows, for suggesting the closest one to a typo. */
const ALL_WORDS = [...READ_COMMAND_WORDS, ...WRITE_COMMAND_WORDS, ...APPROVER_WORDS];

/**
 * The slash command: acknowledged at once with an empty body, then answered through `respond`
 * (the command's response_url), so a slow provider never makes Slack time out.
 */
export function payCommand(deps: CommandDeps) {
  return async ({
    ack,
    command,
    respond,
    client,
  }: SlackCommandMiddlewareArgs & AllMiddlewareArgs): Promise<void> => {
    await ack();
    // Merged into a line only if one is logged: a child logger per command was a tenth of the
    // engine's allocations under load.
    const context = { userId: command.user_id, channelId: command.channel_id };
    const answer = await guarded(
      deps.logger,
      () => answerCommand(deps, command, client),
      renderInternalError,
      context,
    );
    if (answer) await answerPrivately(respond, answer, deps.logger, context);
  };
}

/** `undefined` when the answer is a modal rather than a message. */
async function answerCommand(
  deps: CommandDeps,
  command: SlashCommand,
  client: WebClient,
): Promise<SlackMessage | undefined> {
  if (deps.channels && !deps.channels.has(command.channel_id)) {
    return renderWrongChannel([...deps.channels]);
  }
  const text = decodeSlackText(command.text ?? '');
  const [word = '', rest = ''] = splitFirstWord(text);
  // Writes check requesters, approver words approvers; each at this moment. Someone who holds
  // no role at all is told so, the same whatever they typed.
  if (isWriteCommandWord(word) || isApproverWord(word)) {
    const role = isApproverWord(word) ? 'approver' : 'requester';
    const refused = await noRoleRefusal(deps, command.user_id, role);
    if (refused) return refused;
    if (isApproverWord(word)) {
      return answerApproverCommand(deps.approvals, deps.command, word, rest, command, client);
    }
    return answerWriteCommand(deps.approvals, { ...command, text }, client);
  }
  const parsed = parseCommand(text);
  if (parsed.kind === 'help') return answerHelp(deps, command.user_id);
  const access = await deps.access.check(deps.readers, command.user_id);
  if (!access.allowed) return renderDenied(access, deps.accessAdmin);
  switch (parsed.kind) {
    case 'invalid':
      return renderInvalid(readProblemText(deps.command, parsed.problem), deps.command);
    case 'unknown':
      return renderUnknown(parsed.word, closest(parsed.word, ALL_WORDS), deps.command);
    case 'all-balances':
    case 'read':
      return answerRead(deps.reads, parsed);
  }
}

/** The first word, lower-cased, and the text after it. */
function splitFirstWord(text: string): [string, string] {
  const match = /^\s*(\S+)\s*([\s\S]*)$/.exec(text);
  return match ? [(match[1] as string).toLowerCase(), match[2] as string] : ['', ''];
}
