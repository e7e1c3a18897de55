import { z } from 'zod';
import { SCOPES, type Scope } from '../domain/operations.ts';
import type { PaymentsClient } from '../payments/client.ts';
import {
  InvalidApiKeyError,
  MissingApiKeyError,
  PaymentsApiError,
  type ProviderErrorFacts,
  ScopeReviewRequiredError,
} from '../payments/errors.ts';
import { findList } from '../payments/response-shape.ts';

/**
 * The provider's recommended first calls (spec part 1), made one at a time:
 * `GET /health`, then `GET /me`, then `GET /wallets`. Used by `payops doctor` and by the
 * bot's start-up, which refuses to start unless they pass.
 */

export type CheckName = 'health' | 'me' | 'wallets';

export interface CheckResult {
  name: CheckName;
  ok: boolean;
  detail: string;
  requestId?: string | undefined;
}

export interface Identity {
  customerId: string;
  businessName: string;
  scopes: string[];
}

export interface FirstChecksReport {
  ok: boolean;
  /** Something is wrong that retrying will not fix: stop and have a person look. */
  stop: boolean;
  checks: CheckResult[];
  identity: Identity | undefined;
  walletCount: number | undefined;
}

export interface Expectations {
  customerId: string;
  scopes: readonly Scope[] | undefined;
}

const meSchema = z.object({
  customer: z.object({ id: z.string().min(1), business_name: z.string() }),
  api_key: z.object({ scopes: z.array(z.string()) }),
});

export async function runFirstChecks(
  client: PaymentsClient,
  expected: Expectations,
  /** A failed call in a person's words (src/slack/text/provider-errors.ts). */
  describeError: (facts: ProviderErrorFacts) => string,
): Promise<FirstChecksReport> {
  const checks: CheckResult[] = [];
  const finish = (stop: boolean, identity?: Identity, walletCount?: number): FirstChecksReport => ({
    ok: !stop && checks.every((check) => check.ok),
    stop,
    checks,
    identity,
    walletCount,
  });

  try {
    const health = await client.call('health');
    const status = (health.body as { status?: unknown } | undefined)?.status;
    checks.push({
      name: 'health',
      ok: true,
      detail: `reachable (status ${typeof status === 'string' ? status : 'not stated'}); this proves reachability only, not the key or payment eligibility`,
      requestId: health.requestId,
    });
  } catch (error) {
    checks.push(failed('health', error, describeError));
    return finish(false);
  }

  let identity: Identity;
  try {
    const me = await client.call('getMe');
    const parsed = meSchema.safeParse(me.body);
    if (!parsed.success) {
      checks.push({
        name: 'me',
        ok: false,
        detail:
          'GET /me answered without customer.id, customer.business_name and api_key.scopes, so the business cannot be confirmed. Stop and ask the provider.',
        requestId: me.requestId,
      });
      return finish(true);
    }
    identity = {
      customerId: parsed.data.customer.id,
      businessName: parsed.data.customer.business_name,
      scopes: parsed.data.api_key.scopes,
    };
    const problems = identityProblems(identity, expected);
    // Only a key of another business tempts anyone to change the expected identifier.
    const otherBusiness =
      identity.customerId === expected.customerId
        ? ''
        : " Never supply another business's identifier as a workaround.";
    checks.push({
      name: 'me',
      ok: problems.length === 0,
      detail:
        problems.length === 0
          ? `business ${identity.businessName} (${identity.customerId}); key scopes: ${identity.scopes.join(', ') || 'none'}`
          : `${problems.join(' ')} Stop: do not use this deployment until the key is corrected.${otherBusiness}`,
      requestId: me.requestId,
    });
    if (problems.length > 0) return finish(true, identity);
  } catch (error) {
    checks.push(failed('me', error, describeError));
    return finish(isStopError(error));
  }

  try {
    const wallets = await client.call('listWallets');
    const list = findList(wallets.body);
    checks.push({
      name: 'wallets',
      ok: true,
      detail: list
        ? `${list.items.length} wallet(s) listed${list.items.length === 0 ? ' (an empty list is valid)' : ''}`
        : 'answered, but no list was found in the reply',
      requestId: wallets.requestId,
    });
    return finish(false, identity, list?.items.length);
  } catch (error) {
    checks.push(failed('wallets', error, describeError));
    return finish(isStopError(error), identity);
  }
}

function identityProblems(identity: Identity, expected: Expectations): string[] {
  const problems: string[] = [];
  if (identity.customerId !== expected.customerId) {
    problems.push(
      `The key belongs to business ${identity.businessName} (${identity.customerId}), not to the expected business ${expected.customerId}.`,
    );
  }
  if (expected.scopes) {
    const held = [...new Set(identity.scopes)].sort(byCanonicalOrder);
    const wanted = [...expected.scopes].sort(byCanonicalOrder);
    if (held.join(',') !== wanted.join(',')) {
      problems.push(
        `The key's scopes are ${held.join(', ') || 'none'}, but PAYMENTS_EXPECTED_SCOPES is ${wanted.join(', ')}.`,
      );
    }
  }
  return problems;
}

/** read, resources:write, payments:write, then any scope the spec does not name. */
function byCanonicalOrder(a: string, b: string): number {
  const rank = (scope: string) => {
    const index = (SCOPES as readonly string[]).indexOf(scope);
    return index === -1 ? SCOPES.length : index;
  };
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** Key problems are not fixed by trying again: they need a person. */
function isStopError(error: unknown): boolean {
  return (
    error instanceof InvalidApiKeyError ||
    error instanceof MissingApiKeyError ||
    error instanceof ScopeReviewRequiredError
  );
}

function failed(
  name: CheckName,
  error: unknown,
  describeError: (facts: ProviderErrorFacts) => string,
): CheckResult {
  if (!(error instanceof PaymentsApiError)) throw error;
  const stop = isStopError(error)
    ? ' Stop: do not use this deployment until this is resolved.'
    : '';
  return {
    name,
    ok: false,
    detail: `${describeError(error.facts())}${stop}`,
    requestId: error.requestId,
  };
}
