import { type ProviderFollow, parseFollowEvent } from '../../domain/follow.ts';
import { followLookErrorText } from '../text/list-findings.ts';
import { code, dateText, escapeMrkdwn, freeText, inlineText } from './format.ts';

/**
 * What payops has learnt by following a submitted write at the provider, in words: the line
 * on its card, the notices in its thread, and its status history for `/pay request N`. Status
 * words are the provider's own, shown as code (the spec names no states).
 */

/** `*Provider status:* `completed` · 2 min ago (was `pending`) · final`, for the card. */
export function providerStatusLine(follow: ProviderFollow): string {
  const last = follow.history.at(-1);
  const before = follow.history.at(-2);
  // A failure, a return after a success above all, is as loud on the card as in the thread.
  const loud = last?.outcome === 'failure' ? ':x: ' : '';
  const seen = last
    ? `${loud}${code(last.status)} · ${ago(last.seenAt)}${before ? ` (was ${code(before.status)})` : ''}`
    : 'not seen yet';
  return `*Provider status:* ${seen} · ${followingText(follow)}`;
}

function followingText(follow: ProviderFollow): string {
  if (follow.stoppedReason === 'final_status') {
    const success = successBefore(follow, follow.history.length - 1);
    return success ? `final: it came back after ${code(success.status)}` : 'final';
  }
  if (follow.stoppedReason === 'return_window') {
    return 'final: no return or reversal seen in the return window';
  }
  if (follow.stoppedReason === 'time_limit') {
    return `no longer followed: no final status after ${spanText(follow)}`;
  }
  const missing = follow.disappearedAt
    ? `:warning: no longer listed at the provider since ${ago(follow.disappearedAt)}; `
    : '';
  if (follow.watchUntil) {
    return `${missing}a success; payops watches for a return or reversal until ${when(follow.watchUntil)}`;
  }
  return `${missing}payops reads the provider's list until it shows a final status`;
}

/** The last success seen before the `index`-th status, if any: what a failure then undoes. */
function successBefore(follow: ProviderFollow, index: number) {
  return follow.history.slice(0, index).findLast((seen) => seen.outcome === 'success');
}

/**
 * The thread line (after the requester's mention and the request's number) for a notice whose
 * `event` is about the provider's record, or undefined for any other event.
 */
export function followNoticeText(
  follow: ProviderFollow | undefined,
  event: string | undefined,
): string | undefined {
  const parsed = parseFollowEvent(event);
  if (parsed === undefined || follow === undefined) return undefined;
  switch (parsed.kind) {
    case 'change': {
      const now = follow.history[parsed.seen - 1];
      if (now === undefined) return undefined;
      const before = follow.history[parsed.seen - 2];
      const change = before
        ? `Provider status changed: ${code(before.status)} → ${code(now.status)}.`
        : `Provider status: ${code(now.status)} (first seen at the provider).`;
      if (now.outcome === 'failure') {
        const success = successBefore(follow, parsed.seen - 1);
        return success
          ? `:x: ${change} The payment came back after it showed ${code(success.status)}: the payee may not have been paid. Check it at the provider.`
          : `:x: ${change} It failed: payops no longer follows it. Check it at the provider.`;
      }
      if (now.outcome === 'success') {
        const until = follow.watchUntil ? ` until ${when(follow.watchUntil)}` : '';
        return `${change} It is a success; payops keeps watching it for a return or reversal${until}.`;
      }
      return now.final
        ? `${change} It is a final status: payops no longer follows it.`
        : `${change} payops keeps following it.`;
    }
    case 'missing':
      return `is no longer listed at the provider${follow.status ? ` (last seen ${code(follow.status)})` : ''}. payops keeps looking and will tell any new status; check it at the provider.`;
    case 'stopped':
      return `reached no final status at the provider in ${spanText(follow)}${follow.status ? ` (last seen ${code(follow.status)})` : ''}: payops no longer follows it. Check it at the provider.`;
  }
}

/** `/pay request N`: every status seen, and how following stands. */
export function providerHistoryLines(follow: ProviderFollow): string[] {
  const seen = follow.history.map(
    (entry) =>
      `• ${when(entry.seenAt)} ${code(entry.status)}${entry.outcome ? ` (${entry.outcome})` : entry.final ? ' (final)' : ''}`,
  );
  const id = follow.providerId ? ` ${code(follow.providerId)}` : '';
  const lastLook = follow.lastCheckedAt ? ` Last look ${when(follow.lastCheckedAt)}` : '';
  const why = follow.lastError ? `: ${freeText(followLookErrorText(follow.lastError), 300)}` : '';
  return [
    `*Provider status history*${id}`,
    ...(seen.length > 0 ? seen : ['_No status seen yet._']),
    `Followed since ${when(follow.startedAt)}: ${followingText(follow)}.${lastLook}${lastLook ? why : ''}`,
  ];
}

/** Slack's `{ago}` date token: "3 hours ago", right whenever it is read. */
export function ago(iso: string): string {
  const millis = Date.parse(iso);
  if (Number.isNaN(millis)) return inlineText(iso, 40);
  return `<!date^${Math.floor(millis / 1000)}^{ago}|${escapeMrkdwn(iso)}>`;
}

function when(iso: string): string {
  return dateText(iso) ?? inlineText(iso, 40);
}

/** How long it was followed before it stopped, in whole days, hours or minutes. */
function spanText(follow: ProviderFollow): string {
  const ms = Date.parse(follow.stoppedAt ?? '') - Date.parse(follow.startedAt);
  if (!(ms >= 0)) return 'the follow-up time';
  for (const [unit, size] of [
    ['day', 86_400_000],
    ['hour', 3_600_000],
  ] as const) {
    const count = Math.floor(ms / size);
    if (count >= 1) return `${count} ${unit}${count === 1 ? '' : 's'}`;
  }
  const minutes = Math.max(1, Math.round(ms / 60_000));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
