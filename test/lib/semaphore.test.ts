import { describe, expect, it } from 'vitest';
import { Semaphore, SlotTimeout } from '../../src/lib/semaphore.ts';

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

  it('a waiter that times out or is aborted leaves the queue; the next slot goes to the one after', async () => {
    const slots = new Semaphore(1);
    const holder = slots.tryAcquire();
    const timedOut = slots.acquire({ timeoutMs: 5 });
    const aborted = new AbortController();
    const cancelled = slots.acquire({ signal: aborted.signal });
    const patient = slots.acquire({ timeoutMs: 60_000 });
    await expect(timedOut).rejects.toBeInstanceOf(SlotTimeout);
    aborted.abort(new Error('caller gave up'));
    await expect(cancelled).rejects.toThrow('caller gave up');
    expect(slots.waiting).toBe(1);
    holder?.();
    const release = await patient;
    expect(slots.inUse).toBe(1);
    expect(slots.waiting).toBe(0);
    release();
    expect(slots.inUse).toBe(0);
  });
});
