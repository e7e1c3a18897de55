import { z } from 'zod';
import { isScope, SCOPES, type Scope } from '../domain/operations.ts';
import {
  badEntriesProblem,
  isSecureOrLoopback,
  listEntries,
  logLevel,
  positionsOf,
  requiredText,
  secret,
  variable,
  wholeNumber,
} from './fields.ts';
import { type Parts, section } from './read.ts';

/** The Payments API payops fronts, and how much it logs (all `payops doctor` needs). */

const baseUrl = variable(
  'PAYMENTS_BASE_URL',
  requiredText('PAYMENTS_BASE_URL').transform((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'PAYMENTS_BASE_URL is not a valid URL' });
      return z.NEVER;
    }
    const problems: string[] = [];
    if (url.username || url.password) problems.push('must not contain credentials');
    if (url.search || url.hash) problems.push('must not have a query or fragment');
    if (!url.pathname.replace(/\/+$/, '').endsWith('/v1')) problems.push('must end in /v1');
    if (!isSecureOrLoopback(url)) {
      problems.push('must use https:// (plain http:// is allowed only for a loopback sandbox)');
    }
    for (const problem of problems) {
      ctx.addIssue({ code: 'custom', message: `PAYMENTS_BASE_URL ${problem}` });
    }
    if (problems.length > 0) return z.NEVER;
    return url.origin + url.pathname.replace(/\/+$/, '');
  }),
);

const expectedScopes = variable(
  'PAYMENTS_EXPECTED_SCOPES',
  z
    .string()
    .optional()
    .transform((value, ctx): Scope[] | undefined => {
      if (value === undefined || value.trim() === '') return undefined;
      const names = listEntries(value);
      const unknown = positionsOf(names, (name) => !isScope(name));
      if (unknown.length > 0) {
        ctx.addIssue({
          code: 'custom',
          message: badEntriesProblem(
            'PAYMENTS_EXPECTED_SCOPES',
            unknown,
            `not among the known scopes: ${SCOPES.join(', ')}`,
          ),
        });
        return z.NEVER;
      }
      if (!names.includes('read')) {
        ctx.addIssue({
          code: 'custom',
          message:
            'PAYMENTS_EXPECTED_SCOPES must include read: every authenticated operation needs it',
        });
        return z.NEVER;
      }
      return SCOPES.filter((scope) => names.includes(scope));
    }),
);

export const provider = section(
  {
    payments: z.object({
      baseUrl,
      apiKey: secret('PAYMENTS_API_KEY'),
      expectedCustomerId: requiredText('PAYMENTS_EXPECTED_CUSTOMER_ID'),
      expectedScopes,
      readTimeoutMs: wholeNumber('PAYMENTS_TIMEOUT_MS', 10_000, 100, 120_000),
      writeTimeoutMs: wholeNumber('PAYMENTS_WRITE_TIMEOUT_MS', 30_000, 100, 300_000),
      maxInFlight: wholeNumber('PAYMENTS_MAX_IN_FLIGHT', 16, 1, 256),
    }),
    logging: z.object({ level: logLevel('info') }),
  },
  {
    checks: [
      {
        // A write must be given at least as long as a read: it is the call that cannot be retried.
        needs: ['PAYMENTS_TIMEOUT_MS', 'PAYMENTS_WRITE_TIMEOUT_MS'],
        problems: (value) =>
          (value('PAYMENTS_WRITE_TIMEOUT_MS') as number) < (value('PAYMENTS_TIMEOUT_MS') as number)
            ? ['PAYMENTS_WRITE_TIMEOUT_MS must not be shorter than PAYMENTS_TIMEOUT_MS']
            : [],
      },
    ],
  },
);

export type PaymentsToolConfig = Parts<typeof provider>;
