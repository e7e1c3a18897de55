import type { Queryable } from '../database.ts';

/**
 * Marks the request sent only if it is executing under `claimToken`, not sent yet, claimed
 * within the lease ($3 ms) and payments are not frozen; reads the kill switch either way,
 * share-locked as the claim does, so a freeze being written is waited for and seen.
 */
const MARK_SENDING = `
  with kill_switch as (
    select frozen, reason from freeze_state where id = 1 for share
  ), sending as (
    update payment_requests set sent_at = now()
     where id = $1 and status = 'executing' and claim_token = $2 and sent_at is null
       and claimed_at > clock_timestamp() - make_interval(secs => $3::double precision / 1000)
       and not (select frozen from kill_switch)
    returning id
  )
  select exists (select 1 from sending) as sent, k.frozen, k.reason as freeze_reason
    from kill_switch k`;

/** Why the fence let nothing out: a freeze (and its reason), or a claim no longer held. */
export type FenceStop =
  | { code: 'frozen'; freezeReason: string | undefined }
  /** Another claim, a lease run out, or already let out once. */
  | { code: 'claim_lost' };

export type FenceResult = { kind: 'send' } | { kind: 'refused'; stop: FenceStop };

/**
 * The fence before the one call: records that it is being sent, only if the claim is still
 * `claimToken`'s, within the lease `leaseMs` (by the database's clock, the one that stamped
 * the claim and that `recoverStale` reads) and payments are not frozen. Whatever waited
 * between the claim and here, a process that lost its claim gets `refused` and sends nothing.
 */
export async function markSending(
  db: Queryable,
  { id, claimToken, leaseMs }: { id: number; claimToken: string; leaseMs: number },
): Promise<FenceResult> {
  const [row] = await db.query<{ sent: boolean; frozen: boolean; freeze_reason: string | null }>(
    MARK_SENDING,
    [id, claimToken, leaseMs],
  );
  if (row?.sent) return { kind: 'send' };
  if (row?.frozen) {
    return {
      kind: 'refused',
      stop: { code: 'frozen', freezeReason: row.freeze_reason ?? undefined },
    };
  }
  return { kind: 'refused', stop: { code: 'claim_lost' } };
}
