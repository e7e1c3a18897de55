import type { Policy } from '../domain/policy.ts';
import {
  canonicalPolicy,
  canonicalVersion,
  POLICY_CHANGED,
  type PolicyChange,
  readCanonicalPolicy,
} from '../domain/policy-version.ts';
import type { PolicyInForce, PolicyRecording, RecordedPolicy } from '../store/policy-store.ts';

/**
 * The rules are themselves audited: at every start, before any request is served, payops records
 * its policy's version and canonical form in the audit chain when it is not the last one
 * recorded, and announces the change in the approvals channel (through the outbox, in the same
 * transaction). The first policy a store records is not announced: there is nothing to compare
 * it with.
 */

export interface PolicyRecordPort {
  record(
    policy: PolicyInForce,
    announcement: { event: string; body: (previous: RecordedPolicy) => unknown },
  ): Promise<PolicyRecording>;
}

export interface PolicyAudited {
  version: string;
  /** `first`: recorded, not announced; `same`: already recorded; `changed`: recorded, announced. */
  kind: PolicyRecording['kind'];
  /** The version recorded before, on a change. */
  previousVersion: string | undefined;
}

export async function auditPolicy(port: PolicyRecordPort, policy: Policy): Promise<PolicyAudited> {
  const canonical = canonicalPolicy(policy);
  const version = canonicalVersion(canonical);
  const recording = await port.record(
    { version, canonical },
    {
      event: POLICY_CHANGED,
      body: (previous): PolicyChange => ({
        version,
        previousVersion: previous.version,
        before: readCanonicalPolicy(previous.canonical),
        after: canonical,
      }),
    },
  );
  return {
    version,
    kind: recording.kind,
    previousVersion: recording.kind === 'changed' ? recording.previous.version : undefined,
  };
}
