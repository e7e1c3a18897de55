import { READ_COMMAND_WORDS } from '../domain/commands.ts';
import {
  isWrite,
  OPERATION_IDS,
  OPERATIONS,
  type Scope,
  type WriteOperationId,
} from '../domain/operations.ts';
import type { ReadService } from './reads.ts';

/** The approval flow's own command words, for approvers, in the order help lists them. */
export const APPROVER_WORDS = [
  'requests',
  'request',
  'resolve',
  'audit',
  'freeze',
  'unfreeze',
] as const;
export type ApproverWord = (typeof APPROVER_WORDS)[number];

/** A command help lists, and what the key's scopes allow of it; worded on the Slack side. */
export type HelpEntry =
  | {
      kind: 'read';
      word: string;
      /** The catalogue's summaries of the operations the word names. */
      summaries: string[];
      /** Scopes the key lacks for the command itself: it is unavailable. */
      missing: Scope[];
      /** Scopes the key lacks for `--sync` alone. */
      syncMissing: Scope[];
    }
  | { kind: 'write'; operationId: WriteOperationId; missing: Scope[] }
  | { kind: 'approver'; word: ApproverWord };

/** Every read command, and whether this deployment's key can run it. */
export function readCommandHelp(reads: ReadService): HelpEntry[] {
  return READ_COMMAND_WORDS.filter((word) => word !== 'help').map((word) => {
    const operations = OPERATION_IDS.filter((id) => OPERATIONS[id].command === word);
    const missing = [...new Set(operations.flatMap((id) => reads.missingScopes(id)))];
    const syncMissing = operations.some((id) => OPERATIONS[id].query.some((q) => q.name === 'sync'))
      ? reads.missingScopes(operations[0] as (typeof operations)[number], ['sync'])
      : [];
    const summaries = operations.map((id) => OPERATIONS[id].summary);
    return { kind: 'read', word, summaries, missing, syncMissing };
  });
}

/** Every write this person may request, and whether the key's scopes allow it. */
export function writeCommandHelp(
  missingScopesOf: (operationId: WriteOperationId) => Scope[],
): HelpEntry[] {
  return OPERATION_IDS.filter(isWrite).map((operationId) => ({
    kind: 'write',
    operationId,
    missing: missingScopesOf(operationId),
  }));
}

/** The approval flow's own commands, for approvers. */
export const APPROVER_HELP: readonly HelpEntry[] = APPROVER_WORDS.map((word) => ({
  kind: 'approver',
  word,
}));
