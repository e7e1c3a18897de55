import type { Refusal } from '../../src/domain/refusals.ts';
import { refusalText } from '../../src/slack/text/approvals.ts';

/** A refusal in payops's words, under the default command. */
export function said(refusal: Refusal | undefined): string | undefined {
  return refusal && refusalText(refusal, '/pay');
}

/** A result with its refusal, if it is one, worded as the person reads it (`reason`). */
export function told<T extends { kind: string }>(result: T): T & { reason?: string } {
  if (result.kind !== 'refused') return result;
  return { ...result, reason: said(result as T & Refusal) };
}
