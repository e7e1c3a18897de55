import type { DeliveryStatus } from '../../app/outbox-port.ts';
import type { HistoryEntry } from '../../app/request-queries.ts';
import { fieldsOf, type PaymentRequest } from '../../domain/approval.ts';
import { OPERATIONS } from '../../domain/operations.ts';
import {
  amountOf,
  person,
  requestBlocks,
  requestTitle,
  statusText,
  statusWords,
  when,
} from './approval-card.ts';
import { stepsText } from './approval-steps.ts';
import { ago, providerHistoryLines } from './follow-lines.ts';
import {
  amountText,
  code,
  counted,
  freeText,
  inlineText,
  layOut,
  type SlackMessage,
  sectionsOfLines,
  truncate,
} from './format.ts';

/**
 * `/pay requests` and `/pay request <n>`: the pending requests at a glance, and one request
 * with the same facts as its approval message plus its audit history. No buttons and no
 * links here: a decision counts only from the request's own approval message.
 */

/** `total`: how many are pending in all, when `requests` is only the first of them. */
export function renderRequestList(
  requests: PaymentRequest[],
  total: number,
  command: string,
): SlackMessage {
  const all = Math.max(total, requests.length);
  return layOut({
    header: 'Pending requests',
    intro: all === 0 ? ['No request is waiting for approval.'] : [],
    units: requests.map(listItem),
    packing: 'each',
    footer: (shown) => [
      shown < all ? `Showing ${shown} of ${all} pending requests.` : '',
      all > 0 ? `${code(`${command} request <n>`)} shows one with its history.` : '',
    ],
    text: (shown) =>
      all === 0
        ? 'No pending requests'
        : `${counted(all, 'pending request')}${shown < all ? `, showing ${shown}` : ''}`,
  });
}

function listItem(request: PaymentRequest): string {
  const amount = amountOf(fieldsOf(request));
  const what = [
    `*#${request.id}*`,
    inlineText(OPERATIONS[request.operationId].summary),
    ...(amount ? [truncate(amountText(amount.amount, amount.currency), 200)] : []),
  ].join(' · ');
  const approvals = `${request.approvals.length} of ${request.requiredApprovals} approvals`;
  return `${what}\nRequested by ${person(request.requesterId)} ${ago(request.createdAt)} · ${approvals} · expires ${when(request.expiresAt)}`;
}

export function renderRequestDetail(
  request: PaymentRequest,
  history: HistoryEntry[],
  command: string,
  deliveries: DeliveryStatus[] = [],
): SlackMessage {
  const events = history.map(historyLine);
  const messages =
    deliveries.length === 0 ? [] : ['*Slack messages*', ...deliveryLines(deliveries)];
  const provider = request.follow ? providerHistoryLines(request.follow) : [];
  const steps = stepsText(request);
  const facts = [
    ...requestBlocks(request),
    ...sectionsOfLines([...(steps ? [steps] : []), ...provider, ...messages]),
  ];
  // The heading is the first unit, so it is laid out only when history follows it.
  const units = ['*History*', ...(events.length > 0 ? events : ['_No events recorded._'])];
  return layOut({
    header: requestTitle(request),
    intro: [statusText(request, command)],
    facts,
    units,
    packing: 'lines',
    footer: (shown) => {
      const eventsShown = Math.max(0, shown - 1);
      return [
        eventsShown < events.length ? `Showing ${eventsShown} of ${events.length} events.` : '',
        `Payload fingerprint ${code(request.fingerprint)}`,
      ];
    },
    text: () => `Request #${request.id}: ${statusWords(request)}`,
  });
}

function historyLine(entry: HistoryEntry): string {
  const from = entry.from ? `${inlineText(entry.from, 30)} ` : '';
  const change = entry.to ? ` (${from}→ ${inlineText(entry.to, 30)})` : '';
  return `• ${when(entry.at)} ${person(entry.actor)} ${inlineText(entry.event, 300)}${change}`;
}

const DELIVERY_NAMES: Readonly<Record<DeliveryStatus['kind'], string>> = {
  card: 'approval card',
  card_update: 'card redraw',
  notice: 'thread notice',
  confirmation: 'requester’s confirmation',
};

/** An unknown outcome is looked for every minute for days, each look redrawing its card. */
const MAX_DELIVERY_LINES = 12;

/**
 * The deliveries, the card's settled redraws summed up in one last line and the oldest others
 * left out past MAX_DELIVERY_LINES: within Slack's limits however long the request lives.
 */
function deliveryLines(deliveries: DeliveryStatus[]): string[] {
  const settled = (delivery: DeliveryStatus) =>
    delivery.kind === 'card_update' && ['delivered', 'superseded'].includes(delivery.state);
  const redraws = deliveries.filter(settled);
  const others = deliveries.filter((delivery) => !settled(delivery)).map(deliveryLine);
  const summary = redraws.length > 0 ? [redrawsLine(redraws)] : [];
  const room = MAX_DELIVERY_LINES - summary.length;
  if (others.length <= room) return [...others, ...summary];
  const hidden = others.length - (room - 1);
  return [`• ${counted(hidden, 'earlier message')} not shown`, ...others.slice(hidden), ...summary];
}

function redrawsLine(redraws: DeliveryStatus[]): string {
  const delivered = redraws.filter((delivery) => delivery.state === 'delivered');
  const last = delivered.at(-1);
  const skipped = redraws.length - delivered.length;
  return [
    `• ${counted(delivered.length, 'card redraw')} delivered`,
    last ? `, the last ${when(last.deliveredAt ?? last.dueAt)}` : '',
    skipped > 0 ? `; ${skipped} not needed (a newer drawing was delivered)` : '',
  ].join('');
}

/** What the outbox did with one message: delivered, waiting and why, or failed and why. */
function deliveryLine(delivery: DeliveryStatus): string {
  const what = `${DELIVERY_NAMES[delivery.kind]}${delivery.event ? ` (${inlineText(delivery.event, 30)})` : ''}`;
  const why = delivery.lastError ? `: ${freeText(delivery.lastError, 300)}` : '';
  const tries = delivery.attempts > 1 ? `, ${delivery.attempts} tries` : '';
  switch (delivery.state) {
    case 'delivered':
      return `• ${what}: delivered ${when(delivery.deliveredAt ?? delivery.dueAt)}${tries}`;
    case 'superseded':
      return `• ${what}: not needed (a newer drawing of the card was delivered)`;
    case 'failed':
      return `• ${what}: *failed*${tries}${why}`;
    case 'sending':
      return `• ${what}: being sent now${tries}`;
    case 'waiting':
      return `• ${what}: waiting, next try ${when(delivery.dueAt)}${tries}${why}`;
  }
}
