import { z } from 'zod';
import { DEFAULT_FAILURE_STATUSES, DEFAULT_SUCCESS_STATUSES } from '../domain/follow.ts';
import { OPERATIONS, type WriteOperationId } from '../domain/operations.ts';
import { DEFAULT_PURPOSE_REQUIRED, PURPOSE_OPERATIONS } from '../domain/purpose.ts';
import {
  badEntriesProblem,
  duration,
  listEntries,
  oneOf,
  positionsOf,
  variable,
  wholeNumber,
} from './fields.ts';
import { section } from './read.ts';

/** How payops runs its approvals and follows what it sent. */

const DAY_MS = 86_400_000;

/** Provider status words, lower case, compared in any case; `defaults` when unset or blank. */
const statusList = (name: string, defaults: readonly string[], meaning: string) =>
  variable(
    name,
    z
      .string()
      .optional()
      .transform((value, ctx): ReadonlySet<string> => {
        if (value === undefined || value.trim() === '') return new Set(defaults);
        const words = listEntries(value);
        const bad = positionsOf(
          words,
          (word) => !/^[\p{L}\p{N}][\p{L}\p{N} _.-]{0,63}$/u.test(word),
        );
        if (words.length === 0 || bad.length > 0) {
          ctx.addIssue({
            code: 'custom',
            message:
              words.length === 0
                ? `${name} names no status: list the provider statuses ${meaning}`
                : badEntriesProblem(
                    name,
                    bad,
                    'not a status word (letters, digits, spaces, _ . -; at most 64 characters)',
                  ),
          });
          return z.NEVER;
        }
        return new Set(words.map((word) => word.toLowerCase()));
      }),
  );

/** A money-moving write's command word, e.g. `payout`. */
const purposeWord = (id: WriteOperationId) => OPERATIONS[id].command;

/**
 * The money-moving writes refused without a purpose, by command word (`payout,transfer`), or
 * `none`; payouts and transfers when unset or blank.
 */
const requirePurpose = variable(
  'PAYOPS_REQUIRE_PURPOSE',
  z
    .string()
    .optional()
    .transform((value, ctx): ReadonlySet<WriteOperationId> => {
      const written = value?.trim().toLowerCase() ?? '';
      if (written === '') return new Set(DEFAULT_PURPOSE_REQUIRED);
      if (written === 'none') return new Set();
      const words = listEntries(written);
      const bad = positionsOf(
        words,
        (word) => !PURPOSE_OPERATIONS.some((id) => purposeWord(id) === word),
      );
      if (bad.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: badEntriesProblem(
            'PAYOPS_REQUIRE_PURPOSE',
            bad,
            `not the command word of a money-moving write (${PURPOSE_OPERATIONS.map(purposeWord).join(', ')}); none, alone, requires no purpose`,
          ),
        });
        return z.NEVER;
      }
      return new Set(PURPOSE_OPERATIONS.filter((id) => words.includes(purposeWord(id))));
    }),
);

/** Room for the steps between the claim of an execution and its call. */
const LEASE_MARGIN_MS = 500;

export const behaviour = section(
  {
    /** What a requester is asked in Slack, besides a write's fields. */
    slack: z.object({ requirePurpose }),
    approvals: z.object({
      /** How long an execution may run before another process may call its outcome unknown. */
      executionLeaseMs: wholeNumber('PAYOPS_EXECUTION_LEASE_MS', 120_000, 1_000, 3_600_000),
      /** `strict`: a failed pre-flight check refuses the request; `warn`: the card shows it. */
      preflight: oneOf('PAYOPS_PREFLIGHT', ['warn', 'strict'], 'warn'),
      /** A request pending this long nudges its approvers once (and again in its last hour). */
      remindAfterMs: duration('PAYOPS_REMIND_AFTER', 2 * 3_600_000, '1s', '7d'),
    }),
    /** Following submitted writes at the provider until a final status (by reading). */
    follow: z.object({
      /** Lower case; none in both. */
      statuses: z.object({
        success: statusList(
          'PAYOPS_SUCCESS_STATUSES',
          DEFAULT_SUCCESS_STATUSES,
          'after which the money reached its destination, e.g. completed,paid',
        ),
        failure: statusList(
          'PAYOPS_FAILURE_STATUSES',
          DEFAULT_FAILURE_STATUSES,
          'after which the money did not reach its destination or came back, e.g. failed,returned',
        ),
      }),
      /** After a success, how long it is still followed for a return or reversal. */
      returnWindowMs: duration('PAYOPS_RETURN_WINDOW', 60 * DAY_MS, '1m', '180d'),
      /** Following stops this long after it started, unless a success was seen. */
      forMs: duration('PAYOPS_FOLLOW_FOR', 7 * DAY_MS, '1m', '90d'),
      /** How often each record is read while it changes (15 minutes once unchanged for an hour). */
      intervalMs: wholeNumber('PAYOPS_FOLLOW_INTERVAL_MS', 60_000, 100, 3_600_000),
    }),
  },
  {
    checks: [
      {
        // The lease must outlast the longest write (its deadline includes waiting for a
        // connection), with room for the steps between the claim and the call, or a live call
        // could be declared abandoned.
        needs: ['PAYOPS_EXECUTION_LEASE_MS', 'PAYMENTS_WRITE_TIMEOUT_MS'],
        problems: (value) =>
          (value('PAYOPS_EXECUTION_LEASE_MS') as number) <
          (value('PAYMENTS_WRITE_TIMEOUT_MS') as number) + LEASE_MARGIN_MS
            ? [
                `PAYOPS_EXECUTION_LEASE_MS must be at least PAYMENTS_WRITE_TIMEOUT_MS + ${LEASE_MARGIN_MS} ms`,
              ]
            : [],
      },
      {
        needs: ['PAYOPS_SUCCESS_STATUSES', 'PAYOPS_FAILURE_STATUSES'],
        problems(value) {
          const failure = value('PAYOPS_FAILURE_STATUSES') as ReadonlySet<string>;
          const both = [...(value('PAYOPS_SUCCESS_STATUSES') as ReadonlySet<string>)].filter(
            (word) => failure.has(word),
          );
          return both.length > 0
            ? [
                `PAYOPS_SUCCESS_STATUSES and PAYOPS_FAILURE_STATUSES both list ${both.join(', ')}: a status is a success or a failure, not both`,
              ]
            : [];
        },
      },
    ],
  },
);
