import type { ActionsBlock, HomeView, KnownBlock } from '@slack/types';
import type { HomeShown } from '../../app/home-click.ts';
import type { PaymentRequest } from '../../domain/approval.ts';
import { ACTION } from '../interaction-ids.ts';
import { documentLine } from '../text/documents.ts';
import {
  type FreezeNotice,
  purposeLine,
  renderApprovalCard,
  requestTitle,
  statusText,
} from './approval-card.ts';
import { providerStatusLine } from './follow-lines.ts';
import { counted, escapeMrkdwn, header, type SlackMessage, section } from './format.ts';
import { renderNotAllowed } from './messages.ts';

/**
 * A person's Home tab: the requests waiting for their approval, each drawn exactly as its
 * approval card (the same facts, checks and confirm dialog) with buttons of the Home's own,
 * then their own requests with their status as it is now, the last decisions they took part
 * in, and the commands they may run.
 */

export interface HomeContent {
  /** Undefined: not an approver. */
  queue: { requests: PaymentRequest[]; total: number } | undefined;
  /** Undefined: not a requester, and never requested anything. */
  own: PaymentRequest[] | undefined;
  decisions: PaymentRequest[];
  freeze: FreezeNotice | undefined;
  /** The commands they may run, for readers. */
  help: SlackMessage | undefined;
  /** The slash command as configured, for the lines that name one. */
  command: string;
  now: Date;
}

/** Slack's limit for a Home tab. */
const MAX_HOME_BLOCKS = 100;
/** Kept for the sections after the queue: their headers and lines. */
const AFTER_QUEUE_RESERVE = 24;

export function renderHome(content: HomeContent): HomeView & { blocks: KnownBlock[] } {
  const later = [
    ...ownBlocks(content),
    ...decisionBlocks(content),
    ...(content.help?.blocks ?? []),
  ];
  const room = MAX_HOME_BLOCKS - Math.min(later.length, AFTER_QUEUE_RESERVE);
  const blocks = [...queueBlocks(content, room), ...later].slice(0, MAX_HOME_BLOCKS);
  return { type: 'home', blocks };
}

/** Marks the one Home of a person with no role: it never changes, so it is drawn once. */
export const NO_ROLE_HOME = 'payops_home_no_role';

/** The Home of a person who may neither approve, request nor read: whom to ask, nothing more. */
export function renderNoRoleHome(accessAdmin: string): HomeView {
  return { type: 'home', callback_id: NO_ROLE_HOME, blocks: renderNotAllowed(accessAdmin).blocks };
}

/** The queue's cards, as many whole ones as fit in `room` blocks, then how many more wait. */
function queueBlocks(content: HomeContent, room: number): KnownBlock[] {
  const { queue } = content;
  if (queue === undefined) return [];
  const blocks: KnownBlock[] = [header(`Waiting for your approval (${queue.total})`)];
  if (queue.total === 0) {
    blocks.push(section('Nothing waits for your approval.'));
    return blocks;
  }
  let shown = 0;
  for (const request of queue.requests) {
    const card = [...homeCard(request, content), { type: 'divider' } as KnownBlock];
    // One block is kept for the line saying how many more wait.
    if (blocks.length + card.length > room - 1) break;
    blocks.push(...card);
    shown++;
  }
  if (shown < queue.total) {
    blocks.push(
      section(
        `${counted(queue.total - shown, 'more request')} waiting for you, not shown here: \`${content.command} requests\` lists the pending requests.`,
      ),
    );
  }
  return blocks;
}

/** The request's approval card as it is now, its Approve and Reject answering on the Home. */
function homeCard(request: PaymentRequest, content: HomeContent): KnownBlock[] {
  const card = renderApprovalCard(request, {
    command: content.command,
    freeze: content.freeze,
    now: content.now,
    labels: request.labels,
  });
  const value = homeButtonValue(request);
  return card.blocks.map((block) =>
    block.type === 'actions' ? homeActions(block as ActionsBlock, value) : block,
  );
}

const HOME_ACTION_OF: ReadonlyMap<string, string> = new Map([
  [ACTION.approve, ACTION.homeApprove],
  [ACTION.reject, ACTION.homeReject],
  [ACTION.ask, ACTION.homeAsk],
]);

function homeActions(block: ActionsBlock, value: string): ActionsBlock {
  return {
    ...block,
    elements: block.elements.map((element) => {
      const homeAction = 'action_id' in element && HOME_ACTION_OF.get(element.action_id ?? '');
      return homeAction ? { ...element, action_id: homeAction, value } : element;
    }),
  };
}

function ownBlocks(content: HomeContent): KnownBlock[] {
  if (content.own === undefined) return [];
  const lines = content.own.map((request) => requestLine(request, content));
  return [
    header('Your requests'),
    ...(lines.length === 0 ? [section('You have made no request yet.')] : lines),
  ];
}

function decisionBlocks(content: HomeContent): KnownBlock[] {
  if (content.decisions.length === 0) return [];
  return [
    header('Last decisions'),
    ...content.decisions.map((request) => requestLine(request, content)),
  ];
}

/**
 * `*#12 · Create a payout · 10.00 USD*`, its purpose and supporting document, then what its
 * approval card says of its state now, with the provider's status when it is followed.
 */
function requestLine(request: PaymentRequest, { command, now }: HomeContent): KnownBlock {
  const where = request.channelId ? ` · approval message in <#${request.channelId}>` : '';
  const purpose = request.purpose === undefined ? '' : `\n${purposeLine(request.purpose)}`;
  const document = request.document === undefined ? '' : `\n${documentLine(request.document)}`;
  const provider = request.follow ? `\n${providerStatusLine(request.follow)}` : '';
  return section(
    `*${escapeMrkdwn(requestTitle(request))}*${where}${purpose}${document}\n${statusText(request, command, now)}${provider}`,
  );
}

// ——— the Home's buttons ———

/** A Home button's value: the request and what the Home showed of it (Slack allows 2,000). */
export function homeButtonValue(request: PaymentRequest): string {
  return JSON.stringify({
    id: request.id,
    fingerprint: request.fingerprint,
    approvals: request.approvals.length,
  });
}

/** A Home button's value read back; undefined if it is not one payops made. */
export function parseHomeButton(
  value: string | undefined,
): { id: number; shown: HomeShown } | undefined {
  try {
    const parsed = JSON.parse(value ?? '') as Record<string, unknown>;
    const { id, fingerprint, approvals } = parsed;
    if (
      !Number.isSafeInteger(id) ||
      (id as number) <= 0 ||
      typeof fingerprint !== 'string' ||
      !Number.isSafeInteger(approvals)
    ) {
      return undefined;
    }
    return { id: id as number, shown: { fingerprint, approvals: approvals as number } };
  } catch {
    return undefined;
  }
}
