/**
 * A counting semaphore: at most `limit` holders at once, the rest wait in arrival order.
 * Hand-written because the Payments client needs `tryAcquire` and a deadline and an abort per
 * waiter together, which neither p-limit nor async-sema offers.
 */
export class Semaphore {
  readonly limit: number;
  #held = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError('limit must be at least 1');
    this.limit = limit;
  }

  get inUse(): number {
    return this.#held;
  }

  /** How many are waiting for a slot. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** A release function if a slot is free right now, else undefined (nothing is queued). */
  tryAcquire(): (() => void) | undefined {
    if (this.#held >= this.limit) return undefined;
    this.#held++;
    return this.#releaser();
  }

  /**
   * Resolves with a release function once a slot is free; rejects if `signal` aborts or
   * `timeoutMs` passes first, leaving the queue. (A plain timer: cheaper than an
   * `AbortSignal.timeout` per waiter.)
   */
  acquire(
    options: { signal?: AbortSignal | undefined; timeoutMs?: number } = {},
  ): Promise<() => void> {
    const { signal, timeoutMs } = options;
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#held < this.limit) {
      this.#held++;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const grant = () => {
        settle();
        this.#held++;
        resolve(this.#releaser());
      };
      const leave = (reason: unknown) => {
        settle();
        this.#waiting.splice(this.#waiting.indexOf(grant), 1);
        reject(reason);
      };
      const onAbort = () => leave(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => leave(new SlotTimeout(timeoutMs)), timeoutMs);
      }
      this.#waiting.push(grant);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held--;
      this.#waiting.shift()?.();
    };
  }
}

/** No slot came free within the time a caller was willing to wait. */
export class SlotTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no slot came free within ${timeoutMs} ms`);
    this.name = 'SlotTimeout';
  }
}
