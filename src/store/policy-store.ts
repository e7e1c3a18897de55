import type { Database } from './database.ts';
import { enqueueAnnouncement } from './outbox-store.ts';
import { audit } from './requests/audit.ts';

/**
 * The approval policy in the audit chain: a `policy_loaded` row (of no request, like a freeze's)
 * whenever payops starts under a policy version other than the last one recorded.
 */

/** The audit event of a policy recorded at start-up. */
export const POLICY_LOADED = 'policy_loaded';

/** Any constant shared by all payops processes: replicas starting together record once. */
const POLICY_LOCK = 72_450_020;

/** The policy payops starts under: its version and canonical form (plain JSON data). */
export interface PolicyInForce {
  version: string;
  canonical: unknown;
}

/** What the last `policy_loaded` row holds. */
export interface RecordedPolicy {
  version: string;
  canonical: unknown;
}

/**
 * `first`: no policy was recorded before (a new store); `same`: the last one recorded is this
 * version, nothing written; `changed`: recorded, and `announcement` (built from the previous
 * record) enqueued for the approvals channel in the same transaction.
 */
export type PolicyRecording =
  | { kind: 'first' | 'same' }
  | { kind: 'changed'; previous: RecordedPolicy };

export class PolicyStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * Records `policy` unless it is the last version recorded; on a change, enqueues the
   * announcement `announce` makes of the previous record. Under a transaction-scoped lock: of
   * replicas starting together, the first records and announces, the others find it recorded.
   */
  record(
    policy: PolicyInForce,
    announcement: { event: string; body: (previous: RecordedPolicy) => unknown },
  ): Promise<PolicyRecording> {
    return this.#db.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [POLICY_LOCK]);
      const [last] = await tx.query<{ detail: Record<string, unknown> | string | null }>(
        `select detail from audit_log where event = '${POLICY_LOADED}' order by id desc limit 1`,
      );
      const detail = typeof last?.detail === 'string' ? JSON.parse(last.detail) : last?.detail;
      const previous: RecordedPolicy | undefined = last && {
        version: String(detail?.version ?? ''),
        canonical: detail?.policy,
      };
      if (previous?.version === policy.version) return { kind: 'same' };
      await audit(tx, {
        requestId: undefined,
        actor: 'payops',
        event: POLICY_LOADED,
        detail: {
          version: policy.version,
          policy: policy.canonical,
          ...(previous && { previous_version: previous.version }),
        },
      });
      if (!previous) return { kind: 'first' };
      await tx.query(enqueueAnnouncement('$1', '$2::jsonb'), [
        announcement.event,
        JSON.stringify(announcement.body(previous)),
      ]);
      return { kind: 'changed', previous };
    });
  }
}
