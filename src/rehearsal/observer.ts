/**
 * What a rehearsal shows the world, for whoever observes it: the test suite's leak scan installs
 * an observer in each test worker; the demo, `payops sandbox` and the benchmark install none, and
 * then nothing is recorded.
 */
export type ObservedKind =
  /** Web API calls the emulation received: arguments and its replies. */
  | 'slack-calls'
  | 'response-urls'
  | 'files'
  /** The bodies payops answered Slack's signed requests with (acks, view errors). */
  | 'bot-answers'
  /** Log lines of in-process bots, and what payops processes printed. */
  | 'logs'
  /** The secret values each bot was configured with. */
  | 'secrets';

/** Called synchronously with each record, as it is produced (nothing is encoded for it first). */
export type RehearsalObserver = (kind: ObservedKind, record: unknown) => void;

let observer: RehearsalObserver | undefined;

/** Sets the observer of every rehearsal in this process (or thread), or removes it. */
export function observeRehearsals(next: RehearsalObserver | undefined): void {
  observer = next;
}

export function observe(kind: ObservedKind, record: unknown): void {
  observer?.(kind, record);
}

/** Whether anyone observes: an observed bot logs everything it can, to the observer alone. */
export function observed(): boolean {
  return observer !== undefined;
}
