/**
 * The Slack messages a fake store writes with a change, as the real store writes them to the
 * outbox in the change's own statement: a test reads what payops would tell, and in what order.
 */
export interface Told {
  requestId: number;
  /** What happened, as the outbox's event names it: `provider_status`, `approved`… */
  event: string;
  detail?: Readonly<Record<string, unknown>>;
}

export class RecordedDeliveries {
  readonly told: Told[] = [];

  tell(requestId: number, event: string, detail?: Readonly<Record<string, unknown>>): void {
    this.told.push({ requestId, event, ...(detail && { detail }) });
  }

  /** The events told of `requestId`, oldest first. */
  of(requestId: number): string[] {
    return this.told.filter((told) => told.requestId === requestId).map((told) => told.event);
  }
}
