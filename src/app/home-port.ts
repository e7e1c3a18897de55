/**
 * Who looks at payops's Home tab, and whose Home is out of date, as the Slack side that draws
 * them sees it (src/slack/home-refresher.ts). The store keeps it (src/store/home-store.ts): a
 * change to a request marks the Homes concerned stale, and one process at a time claims a Home
 * to draw it.
 */
export interface HomeViewersPort {
  /** `userId` opened their Home (whether they may approve, as found now): drawn in its turn. */
  opened(userId: string, isApprover: boolean): Promise<void>;
  /** Marks the Homes concerned by up to `limit` changes; resolves with how many it took. */
  absorbChanges(limit: number): Promise<number>;
  /** Up to `limit` stale Homes, each drawn at most once per `minIntervalMs`, claimed for `leaseMs`. */
  claimStale(limit: number, minIntervalMs: number, leaseMs: number): Promise<string[]>;
  /** Drawn: whether they are an approver decides which changes concern them. */
  published(userId: string, isApprover: boolean): Promise<void>;
  /** Not drawn this time: stale again, at once or (`retryLater`) after the usual interval. */
  release(userId: string, retryLater: boolean): Promise<void>;
  /** Not to be drawn again until they open it (refused for good, or the one static view drawn). */
  forget(userId: string): Promise<void>;
}
