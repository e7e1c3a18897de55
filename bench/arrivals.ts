import { OPERATIONS } from '../src/domain/operations.ts';
import type { PaymentsSandbox, RecordedRequest } from '../src/sandbox/payments-api.ts';
import type { SlackEmulation } from '../src/sandbox/slack.ts';
import { APPROVALS_CHANNEL, type Card } from './slack-requests.ts';

/**
 * What payops did, as the emulation and the sandbox recorded it: answers posted to
 * response_urls, approval messages posted, createPayout calls received. Their record arrays are
 * followed from where the last look stopped (every millisecond while someone waits), never
 * scanned whole, so following them costs nothing however long the run.
 */

interface Waiter {
  done(): boolean;
  resolve(): void;
}

export class Arrivals {
  /** Every createPayout the sandbox received, in order. */
  readonly payouts: RecordedRequest[] = [];
  /** Every approval message posted, in order. */
  readonly cards: Card[] = [];
  readonly #answered = new Set<string>();
  /** The ts of every approval message with a reply in its thread. */
  readonly #threadsTold = new Set<string>();
  readonly #waiters = new Set<Waiter>();
  #postsSeen = 0;
  #requestsSeen = 0;
  #callsSeen = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly emulation: SlackEmulation,
    private readonly sandbox: PaymentsSandbox,
  ) {}

  /** Resolves once every one of `ids` has had an answer; rejects after `timeoutMs`. */
  allAnswered(ids: readonly string[], timeoutMs: number): Promise<void> {
    return this.#allIn(this.#answered, ids, timeoutMs, 'answers on response_url');
  }

  /**
   * Resolves once each card's requester has been told the outcome in its thread, the last thing
   * payops does for an approval; rejects after `timeoutMs`.
   */
  allToldInThread(cards: readonly Card[], timeoutMs: number): Promise<void> {
    const threads = cards.map((card) => card.ts);
    return this.#allIn(this.#threadsTold, threads, timeoutMs, 'outcomes told in a thread');
  }

  /** Resolves with the createPayout at `index` of `payouts` once it has arrived. */
  async payout(index: number, timeoutMs: number): Promise<RecordedRequest> {
    await this.until(() => this.payouts.length > index, timeoutMs, `createPayout #${index + 1}`);
    return this.payouts[index] as RecordedRequest;
  }

  /** Catches up with the records now, and returns how many createPayouts have arrived. */
  payoutCount(): number {
    this.#scan();
    return this.payouts.length;
  }

  /** Resolves when `done()` holds, checked after every look at the records. */
  until(done: () => boolean, timeoutMs: number, what: string | (() => string)): Promise<void> {
    this.#scan();
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        done,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(
          new Error(
            `still waiting for ${typeof what === 'string' ? what : what()} after ${timeoutMs} ms`,
          ),
        );
      }, timeoutMs);
      this.#waiters.add(waiter);
      this.#timer ??= setInterval(() => this.#tick(), 1);
    });
  }

  /**
   * Takes in what has arrived, then lets the emulation and the sandbox drop their records, and
   * forgets which response_urls were answered. Only between runs, with nobody waiting: the
   * bench would otherwise hold every answer and request of a run (its heap passed 1.7 GB in a
   * full run), and a collection of that heap stalls the sandbox and the emulation for payops.
   */
  forgetSeen(): void {
    if (this.#waiters.size > 0) throw new Error('bench: records forgotten while a wait is on');
    this.#scan();
    this.emulation.forgetHistory();
    this.sandbox.forgetRequests();
    this.#answered.clear();
    this.#postsSeen = 0;
    this.#requestsSeen = 0;
    this.#callsSeen = 0;
  }

  close(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    this.#scan();
    for (const waiter of this.#waiters) {
      if (!waiter.done()) continue;
      this.#waiters.delete(waiter);
      waiter.resolve();
    }
    if (this.#waiters.size === 0) this.close();
  }

  #scan(): void {
    const posts = this.emulation.responses;
    for (; this.#postsSeen < posts.length; this.#postsSeen++) {
      this.#answered.add((posts[this.#postsSeen] as { id: string }).id);
    }
    const requests = this.sandbox.requests;
    for (; this.#requestsSeen < requests.length; this.#requestsSeen++) {
      const request = requests[this.#requestsSeen] as RecordedRequest;
      if (isCreatePayout(request)) this.payouts.push(request);
    }
    const calls = this.emulation.calls;
    for (; this.#callsSeen < calls.length; this.#callsSeen++) {
      const call = calls[this.#callsSeen];
      const card = cardOf(call);
      if (card) this.cards.push(card);
      if (call?.method === 'chat.postMessage' && call.args.thread_ts !== undefined) {
        this.#threadsTold.add(String(call.args.thread_ts));
      }
    }
  }

  /** Mostly in order of arrival, so a cursor over `keys` makes each check nearly free. */
  #allIn(seen: ReadonlySet<string>, keys: readonly string[], timeoutMs: number, what: string) {
    let next = 0;
    return this.until(
      () => {
        while (next < keys.length && seen.has(keys[next] as string)) next++;
        return next === keys.length;
      },
      timeoutMs,
      () =>
        `${keys.filter((key) => !seen.has(key)).length} of ${keys.length} ${what} (the first missing: ${keys[next]})`,
    );
  }
}

/** An approval message: a top-level post in the approvals channel whose text starts `#<id> `. */
function cardOf(call: SlackEmulation['calls'][number] | undefined): Card | undefined {
  if (call?.method !== 'chat.postMessage' || call.args.channel !== APPROVALS_CHANNEL) return;
  if (call.args.thread_ts !== undefined || !call.response.ok) return;
  const id = /^#(\d+) /.exec(String(call.args.text))?.[1];
  return id === undefined ? undefined : { id: Number(id), ts: String(call.response.ts) };
}

/**
 * Known by method and path, which the sandbox records on arrival (its `operationId` is only set
 * once the body has been read, after this scan may have passed the entry).
 */
function isCreatePayout(request: RecordedRequest): boolean {
  const { method, path } = OPERATIONS.createPayout;
  return request.method === method && request.path === `/v1${path}`;
}
