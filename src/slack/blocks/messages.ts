import type { AccessDecision } from '../../app/access.ts';
import { clip } from '../../domain/command-text.ts';
import type { Scope } from '../../domain/operations.ts';
import type { RoleMembers } from '../../domain/roles.ts';
import type { PaymentsApiError } from '../../payments/errors.ts';
import { providerErrorText } from '../text/provider-errors.ts';
import {
  code,
  counted,
  escapeMrkdwn,
  freeText,
  inlineText,
  joinWithin,
  layOut,
  notice,
  type SlackMessage,
  textWithMentions,
  truncate,
} from './format.ts';

/**
 * Help, refusals and errors: each says what happened and what to do, in a line or two.
 */

export interface HelpEntry {
  /** The command as typed, e.g. `/pay balance <walletId>`; backtick-quoted forms are kept. */
  usage: string;
  summary: string;
  available: boolean;
  /** Why it is unavailable, or a restriction on an available one ("--sync needs scope …"). */
  reason?: string | undefined;
}

/** What this person may run; commands the API key cannot serve are listed with the reason. */
export function renderHelp(entries: HelpEntry[], command: string): SlackMessage {
  const available = entries.filter((entry) => entry.available);
  const unavailable = entries.filter((entry) => !entry.available);
  const lines = [
    ...available.map(helpLine),
    ...(unavailable.length > 0 ? ['*Not available with this API key:*'] : []),
    ...unavailable.map(helpLine),
  ];
  return layOut({
    header: `${command} commands`,
    intro: [
      available.length > 0
        ? `Commands you can run (type \`${escapeMrkdwn(command)} help\` to see this again):`
        : 'None of the commands can run with this API key at the moment.',
    ],
    units: lines,
    packing: 'lines',
    footer: (shown) => (shown < lines.length ? [`Showing ${shown} of ${lines.length} lines.`] : []),
    text: () => `${command} commands: ${counted(available.length, 'command')} you can run`,
  });
}

function helpLine(entry: HelpEntry): string {
  const usage = entry.usage.includes('`') ? escapeMrkdwn(entry.usage) : code(entry.usage, 200);
  const reason = entry.reason ? ` _(${inlineText(entry.reason)})_` : '';
  return `• ${usage} — ${inlineText(entry.summary)}${reason}`;
}

/** A failed call to the Payments API: its plain message, then the details support will ask for. */
export function renderPaymentsError(error: PaymentsApiError): SlackMessage {
  const details = [
    `error ${code(error.code)}`,
    error.status === undefined ? '' : `HTTP ${error.status}`,
    error.providerCode ? `provider code ${code(error.providerCode)}` : '',
    error.requestId ? `request id ${code(error.requestId)}` : '',
  ].filter(Boolean);
  return notice(freeText(providerErrorText(error.facts()), 2000), [details.join(' · ')]);
}

/** Refused before any request: the API key lacks a scope the operation needs. */
export function renderMissingScopes(operationSummary: string, missing: Scope[]): SlackMessage {
  const names = joinWithin(
    missing.map((scope) => code(scope)),
    ', ',
    300,
  );
  const scopes = missing.length === 1 ? `scope ${names}` : `scopes ${names}`;
  return notice(
    `*${inlineText(operationSummary)}* needs the API key ${scopes}, which payops' key does not have, so payops did not call the Payments API. An administrator must grant ${missing.length === 1 ? 'it' : 'them'} to the key.`,
  );
}

/**
 * A command that could not be understood. `message` comes from the parser and names the
 * problem; its backticks are kept, only Slack's control characters are escaped.
 */
export function renderInvalid(message: string, command: string): SlackMessage {
  return notice(
    `${truncate(escapeMrkdwn(message), 2000)}\nType \`${escapeMrkdwn(command)} help\` to see the commands.`,
  );
}

/**
 * A write command that could not be requested: one line per mistake, each naming its field.
 * The mistakes quote what was typed, decoded: escaped again so it shows as typed.
 */
export function renderNotCreated(problems: readonly string[]): SlackMessage {
  const lines = problems.map((problem) => `• ${escapeMrkdwn(problem)}`);
  return notice(`The request was not created, and nothing was stored:\n${lines.join('\n')}`);
}

export function renderUnknown(
  word: string,
  suggestion: string | undefined,
  command: string,
): SlackMessage {
  const typed = code(clip(`${command} ${word}`, 60), 62);
  const hint = suggestion ? ` Did you mean ${code(`${command} ${suggestion}`)}?` : '';
  return notice(
    `${typed} is not a payops command.${hint} Type \`${escapeMrkdwn(command)} help\` to see what you can run.`,
  );
}

/**
 * A refusal for want of a role. `accessAdmin` is configured text and may mention a person or a
 * user group; refused a requester's or approver's act, the person is told who holds that role.
 */
export function renderNotAllowed(accessAdmin: string, role?: RoleMembers): SlackMessage {
  const admin = textWithMentions(accessAdmin);
  const holders = role
    ? joinWithin([...role.users, ...role.groups].map(textWithMentions), ', ', 1500)
    : '';
  switch (role?.role) {
    case 'approver':
      return notice(
        `Sorry, you are not an approver, so nothing was done. ${holders ? `The approvers are ${holders}: ask one of them. ` : ''}To become an approver, ask ${admin}.`,
      );
    case 'requester':
      return notice(
        `Sorry, you may not request payments or other writes, so nothing was requested. ${holders ? `Those who may are ${holders}: ask one of them. ` : ''}To be allowed, ask ${admin}.`,
      );
    default:
      return notice(
        `Sorry, you are not on the list of people who may use payops, so nothing was run. To get access, ask ${admin}.`,
      );
  }
}

/** Someone refused for want of a role, or because Slack could not say whether they hold it. */
export function renderDenied(
  decision: Exclude<AccessDecision, { allowed: true }>,
  accessAdmin: string,
): SlackMessage {
  return decision.reason === 'directory_unavailable'
    ? renderDirectoryUnavailable()
    : renderNotAllowed(accessAdmin, decision.role);
}

export function renderDirectoryUnavailable(): SlackMessage {
  return notice(
    'payops could not check your user-group membership with Slack just now, so it did not run the command. Please try again in a minute.',
  );
}

/** The channels payops answers in, as Slack channel links. */
export function renderWrongChannel(channels: string[]): SlackMessage {
  if (channels.length === 0) {
    return notice(
      'payops is not set up to answer in any channel yet. Ask an administrator to add one.',
    );
  }
  const links = channels.map(textWithMentions);
  return notice(
    `payops does not answer in this conversation. Please run the command in ${joinWithin(links, ', ', 1500)}.`,
  );
}

/** An unexpected failure inside payops; `reference` lets an administrator find it in the logs. */
export function renderInternalError(reference: string): SlackMessage {
  return notice(
    `Something failed inside payops, so your command got no answer. Please try again; if it keeps failing, give an administrator the reference ${code(reference)} so they can find it in the logs.`,
  );
}

/** A button whose value payops cannot read: not one it drew, or drawn by another version. */
export const NOT_A_REQUEST_BUTTON = 'That button does not name a request.';

export function noSuchRequestText(id: number | string): string {
  return `Request #${id} does not exist.`;
}

/** A click or a Home tab's answer that failed inside payops; `reference` finds it in the logs. */
export function interactionFailedText(reference: string): string {
  return `Something failed inside payops (reference ${reference}). Check the request's approval message before doing anything else.`;
}

/** A request form's submission that failed inside payops; `reference` finds it in the logs. */
export function renderRequestNotStored(reference: string): SlackMessage {
  return notice(
    `Your request could not be stored (reference ${reference}): nothing was created. Try again.`,
  );
}
