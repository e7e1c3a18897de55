/**
 * A loop's sleep that a nudge ends early: `sleep(ms)` resolves after `ms`, or at the next
 * `wake()`, whichever comes first. A wake with nobody asleep is not kept.
 */
export class WakeUp {
  #wake: () => void = () => {};

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  wake(): void {
    this.#wake();
  }
}
