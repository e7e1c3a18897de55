import { describe, expect, it } from 'vitest';
import { Semaphore } from '../../src/lib/semaphore.ts';

describe('Semaphore', () => {
  it('tryAcquire takes a free slot at once, and never one a waiter is owed', async () => {
    const slots = new Semaphore(2);
    const first = slots.tryAcquire();
    const second = slots.tryAcquire();
    expect(first).toBeTypeOf('function');
    expect(second).toBeTypeOf('function');
    expect(slots.tryAcquire()).toBeUndefined();

    let waiterGranted = false;
    const waiter = slots.acquire().then((release) => {
      waiterGranted = true;
      return release;
    });
    first?.();
    // The freed slot went to the waiter, not to whoever asks next.
    expect(slots.tryAcquire()).toBeUndefined();
    (await waiter)();
    expect(waiterGranted).toBe(true);
    expect(slots.inUse).toBe(1);
    first?.(); // releasing twice changes nothing
    expect(slots.inUse).toBe(1);
    expect(slots.tryAcquire()).toBeTypeOf('function');
  });
});
