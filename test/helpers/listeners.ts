import type {
  AllMiddlewareArgs,
  BlockAction,
  ButtonAction,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlashCommand,
  ViewOutput,
} from '@slack/bolt';
import type { SectionBlock } from '@slack/types';
import { expect } from 'vitest';
import { AccessControl, type GroupDirectory } from '../../src/app/access.ts';
import type { ApprovalWorkflow } from '../../src/app/approvals.ts';
import { ReadService } from '../../src/app/reads.ts';
import type { RequestQueries } from '../../src/app/request-queries.ts';
import { parseRoleMembers } from '../../src/domain/roles.ts';
import { createLogger } from '../../src/logger.ts';
import type { CommandDeps } from '../../src/slack/listeners/commands/deps.ts';
import { payCommand } from '../../src/slack/listeners/commands/pay-command.ts';
import type { ApprovalDeps } from '../../src/slack/listeners/deps.ts';
import { type FakeBolt, fakeBolt } from '../fakes/bolt.ts';
import { FakeDirectory } from '../fakes/group-directory.ts';
import { FakeHome } from '../fakes/home.ts';
import type { FakePayments } from '../fakes/payments.ts';
import { FakeRequestLists } from '../fakes/request-queries.ts';
import { CARD, workflowOnFakes } from './workflow.ts';

/** What a listener logs, kept as the JSON lines pino writes. */
export function keptLogger() {
  const lines: string[] = [];
  const logger = createLogger({
    level: 'info',
    secrets: [],
    destination: { write: (line) => lines.push(line) },
  });
  return { logger, lines };
}

/**
 * What Slack's events reach: Homes kept by `home`, user groups read through `directory` (by a
 * real AccessControl, with its cache); what they log is kept in `lines`.
 */
export function eventDeps(directory = new FakeDirectory(), home = new FakeHome()) {
  const { logger, lines } = keptLogger();
  return { home, access: new AccessControl(directory), logger, lines, directory };
}

/**
 * The approval listeners' dependencies around `workflow`, under the command `/payments`; what
 * they log is kept in `lines`. The card buttons' listeners read neither queries nor reads, so
 * they are left out unless given.
 */
export function approvalDeps(
  workflow: ApprovalWorkflow,
  given: { queries?: RequestQueries; reads?: ReadService } = {},
): ApprovalDeps & { lines: string[] } {
  const { logger, lines } = keptLogger();
  return {
    workflow,
    queries: given.queries ?? ({} as RequestQueries),
    reads: given.reads ?? ({} as ReadService),
    approvalsChannelId: CARD.channelId,
    accessAdmin: '<@U0ADMIN>',
    command: '/payments',
    logger,
    lines,
  };
}

/** The read service on the fake provider, with the key's scopes given. */
export function readsOn(payments: FakePayments, keyScopes: readonly string[] = ['read']) {
  return new ReadService(payments, keyScopes);
}

/**
 * The slash command's dependencies around `approvals`: U0ALICE, U0BOB, U0CAROL and U0ERIN read
 * (U0ERIN holds no other role), and so does the group S0READERS, whose members `directory` says.
 */
export function commandDeps(
  approvals: ApprovalDeps,
  options: { reads?: ReadService; channels?: string[]; directory?: GroupDirectory } = {},
): CommandDeps {
  return {
    command: approvals.command,
    readers: parseRoleMembers('U0ALICE,U0BOB,U0CAROL,U0ERIN,S0READERS', 'reader').members,
    channels: options.channels && new Set(options.channels),
    accessAdmin: approvals.accessAdmin,
    access: new AccessControl(options.directory ?? new FakeDirectory()),
    reads: options.reads ?? approvals.reads,
    logger: approvals.logger,
    approvals,
  };
}

/**
 * The slash command on fakes: the workflow of workflowOnFakes, the lists of its requests, reads
 * on its fake provider and the readers' group in `directory`. `run` types `/payments <text>` and
 * returns what the command's listener did (into `bolt` if given, which a fake may write to too).
 */
export function commandOnFakes(options: { channels?: string[] } = {}) {
  const onFakes = workflowOnFakes();
  const lists = new FakeRequestLists(onFakes.store);
  const approvals = approvalDeps(onFakes.workflow, {
    queries: lists.queries(),
    reads: readsOn(onFakes.payments),
  });
  const directory = new FakeDirectory();
  const deps = commandDeps(approvals, { directory, ...options });
  async function run(userId: string, text: string, channelId?: string, bolt = fakeBolt()) {
    const command = slashCommand(userId, text, channelId);
    const args = { ...bolt, command } as unknown as SlackCommandMiddlewareArgs & AllMiddlewareArgs;
    await payCommand(deps)(args);
    return bolt;
  }
  return { ...onFakes, lists, approvals, directory, deps, run };
}

/** The one private answer a listener gave through `respond`, its text and blocks as one string. */
export function answered(bolt: FakeBolt): string {
  expect(bolt.responses).toHaveLength(1);
  expect(bolt.responses[0]).toMatchObject({ response_type: 'ephemeral', replace_original: false });
  return JSON.stringify(bolt.responses[0]);
}

/** `userId`'s click on a button valued `value`, on the approval card at CARD. */
export function buttonClick(
  userId: string,
  value: string,
): { body: BlockAction<ButtonAction>; action: ButtonAction } {
  const { body, action } = homeClick(userId, value);
  const onCard = { ...body, channel: { id: CARD.channelId }, message: { ts: CARD.messageTs } };
  return { body: onCard as unknown as BlockAction<ButtonAction>, action };
}

/** `userId`'s click on a button valued `value` on their Home tab: no channel, no message. */
export function homeClick(
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
    trigger_id: 'T0TRIGGER',
    actions: [action],
  } as unknown as BlockAction<ButtonAction>;
  return { body, action };
}

/** What Bolt hands a button's listener. */
export type ButtonArgs = AllMiddlewareArgs & SlackActionMiddlewareArgs<BlockAction<ButtonAction>>;

/** `userId` clicking a button valued `value` on their Home tab, answered by `listener`. */
export async function clickOnHome(
  listener: (args: ButtonArgs) => Promise<void>,
  userId: string,
  value: string,
  bolt = fakeBolt(),
): Promise<FakeBolt> {
  await listener({ ...bolt, ...homeClick(userId, value) } as unknown as ButtonArgs);
  return bolt;
}

/** `userId` submitting a form carrying `privateMetadata`, its inputs holding `values`. */
export function formSubmission(
  userId: string,
  privateMetadata: string,
  values: ViewOutput['state']['values'],
) {
  const view = {
    id: 'V0MODAL',
    type: 'modal',
    private_metadata: privateMetadata,
    state: { values },
  } as unknown as ViewOutput;
  const body = { type: 'view_submission', user: { id: userId }, view };
  return { view, body };
}

/** `userId` typing `/payments <text>` in `channelId`. */
export function slashCommand(userId: string, text: string, channelId = 'C0PAYOPS'): SlashCommand {
  return {
    command: '/payments',
    text,
    user_id: userId,
    channel_id: channelId,
    trigger_id: 'T0TRIGGER',
    response_url: 'https://hooks.slack.test/commands/1',
  } as SlashCommand;
}

/** The text of the last modal a listener drew: "one moment…", then its answer. */
export function modalText(bolt: FakeBolt): string | undefined {
  const view = bolt.views.at(-1)?.args.view as { blocks?: SectionBlock[] } | undefined;
  return view?.blocks?.[0]?.text?.text;
}

/** The reference a failure's answer gives, and whether the log has it. */
export function referenceIn(text: string | undefined, lines: readonly string[]) {
  const reference = text?.match(/reference `?(\w+)`?/)?.[1];
  const logged = reference !== undefined && lines.join('').includes(`"reference":"${reference}"`);
  return { reference, logged };
}
