import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_POLICY, type Policy, PolicyError, parsePolicy } from '../domain/policy.ts';
import { parseRoleMembers, type RoleMembers, type RoleName } from '../domain/roles.ts';
import {
  badEntriesProblem,
  idList,
  listEntries,
  positionsOf,
  requiredText,
  textOr,
  variable,
} from './fields.ts';
import { section } from './read.ts';

/** Who may do what, where, and the policy their approvals follow. */

/** Slack user and user group IDs; `who` ends "list the … IDs" when it is missing. */
const roleList = (name: string, role: RoleName, who: string) =>
  variable(
    name,
    z
      .string()
      .optional()
      .transform((value, ctx): RoleMembers => {
        if (value === undefined || value.trim() === '') {
          ctx.addIssue({
            code: 'custom',
            message: `${name} is missing: list the Slack user IDs (U…) or user group IDs (S…) ${who}`,
          });
          return z.NEVER;
        }
        const { members, invalid } = parseRoleMembers(value, role);
        if (invalid.length > 0) {
          ctx.addIssue({
            code: 'custom',
            message: badEntriesProblem(
              name,
              positionsOf(listEntries(value), (entry) => invalid.includes(entry)),
              'neither a user ID (U…/W…) nor a user group ID (S…)',
            ),
          });
          return z.NEVER;
        }
        return members;
      }),
  );

/** The policy in the file at `path` (PAYOPS_POLICY_FILE), or the defaults when none is set. */
export function loadPolicy(path: string | undefined): Policy {
  if (path === undefined || path.trim() === '') return DEFAULT_POLICY;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new PolicyError(path, [`PAYOPS_POLICY_FILE cannot be read (${code})`]);
  }
  return parsePolicy(text, path);
}

/** The policy file read with the rest, so its problems are listed with theirs. */
const policy = variable(
  'PAYOPS_POLICY_FILE',
  textOr('PAYOPS_POLICY_FILE', undefined).transform((path, ctx) => {
    try {
      return loadPolicy(path);
    } catch (error) {
      if (!(error instanceof PolicyError)) throw error;
      for (const problem of error.problems) {
        ctx.addIssue({
          code: 'custom',
          message: problem.startsWith('PAYOPS_POLICY_FILE')
            ? problem
            : `PAYOPS_POLICY_FILE ${path}: ${problem}`,
        });
      }
      return z.NEVER;
    }
  }),
);

export const people = section({
  slack: z.object({
    readers: roleList('PAYOPS_READERS', 'reader', 'who may use payops'),
    /** Where commands are accepted; anywhere when unset. */
    channels: idList(
      'PAYOPS_CHANNELS',
      (id) => /^[CGD][A-Z0-9]{2,}$/.test(id),
      'not shaped like a channel ID (C…, G… or D…)',
    ),
    /** Who to ask for access, named in refusals (a person, a channel, a user group mention). */
    accessAdmin: textOr('PAYOPS_ACCESS_ADMIN', 'your payops administrator'),
  }),
  approvals: z.object({
    requesters: roleList('PAYOPS_REQUESTERS', 'requester', 'who may request writes'),
    approvers: roleList(
      'PAYOPS_APPROVERS',
      'approver',
      'who may approve, reject and freeze requests',
    ),
    channelId: variable(
      'PAYOPS_APPROVALS_CHANNEL',
      requiredText('PAYOPS_APPROVALS_CHANNEL').refine((value) => /^[CG][A-Z0-9]{2,}$/.test(value), {
        error:
          'PAYOPS_APPROVALS_CHANNEL must be a channel ID (C… or G…), where approval messages go',
      }),
    ),
    policy,
  }),
});
