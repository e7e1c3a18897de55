import { READ_COMMAND_WORDS, usage } from '../domain/commands.ts';
import {
  isWrite,
  OPERATION_IDS,
  OPERATIONS,
  type Scope,
  type WriteOperationId,
} from '../domain/operations.ts';
import { writeUsage } from '../domain/write-commands.ts';
import type { ReadService } from './reads.ts';

export interface HelpEntry {
  usage: string;
  summary: string;
  /** False when the key lacks a scope the command always needs. */
  available: boolean;
  reason?: string;
}

/** Every read command, and whether this deployment's key can run it. */
export function readCommandHelp(reads: ReadService): HelpEntry[] {
  return READ_COMMAND_WORDS.filter((word) => word !== 'help').map((word) => {
    const operations = OPERATION_IDS.filter((id) => OPERATIONS[id].command === word);
    const missing = [...new Set(operations.flatMap((id) => reads.missingScopes(id)))];
    const syncMissing = operations.some((id) => OPERATIONS[id].query.some((q) => q.name === 'sync'))
      ? reads.missingScopes(operations[0] as (typeof operations)[number], ['sync'])
      : [];
    const summary = operations.map((id) => OPERATIONS[id].summary).join('; ');
    const reason =
      missing.length > 0
        ? `needs scope ${missing.join(', ')}`
        : syncMissing.length > 0
          ? `--sync needs scope ${syncMissing.join(', ')}`
          : undefined;
    return {
      usage: usage(word).replace(/^Usage: /, ''),
      summary,
      available: missing.length === 0,
      ...(reason ? { reason } : {}),
    };
  });
}

/** Every write this person may request, and whether the key's scopes allow it. */
export function writeCommandHelp(
  missingScopesOf: (operationId: WriteOperationId) => Scope[],
): HelpEntry[] {
  return OPERATION_IDS.filter(isWrite).map((operationId) => {
    const missing = missingScopesOf(operationId);
    return {
      usage: writeUsage(operationId).replace(/^Usage: /, ''),
      summary: `${OPERATIONS[operationId].summary} — needs approval`,
      available: missing.length === 0,
      ...(missing.length > 0 ? { reason: `needs scope ${missing.join(', ')}` } : {}),
    };
  });
}

/** The approval flow's own commands, for approvers. */
export const APPROVER_HELP: readonly HelpEntry[] = [
  { usage: '`/pay requests`', summary: 'Pending requests', available: true },
  { usage: '`/pay request <n>`', summary: 'One request with its history', available: true },
  {
    usage: '`/pay resolve <n> executed|not-executed <what you checked>`',
    summary: 'Settle an unknown outcome after looking at the provider',
    available: true,
  },
  { usage: '`/pay audit`', summary: 'The audit log as a CSV file', available: true },
  {
    usage: '`/pay freeze [reason]`',
    summary: 'Stop every write to the provider (reads go on)',
    available: true,
  },
  { usage: '`/pay unfreeze`', summary: 'Allow approvals to execute again', available: true },
];
