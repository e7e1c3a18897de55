import { readdirSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * How far below the calling thread every other thread of the process is put: far enough that
 * the scheduler runs the caller first whenever both want the same CPU.
 */
export const BACKGROUND_NICE_OFFSET = 10;
/** The lowest priority Linux has. */
const LOWEST_NICE = 19;

/**
 * Gives every thread of this process but the calling one a lower CPU priority (a higher nice
 * value), and returns how many it changed. Threads they start later inherit it.
 *
 * Linux keeps a nice value per thread (`setpriority` on a thread id changes that thread only).
 * payops calls this from its main thread, the ingress, whose one job is to acknowledge within
 * Slack's 3 seconds: the engine thread and V8's background threads do work that can wait a
 * millisecond. Measured in the benchmark: V8's background compile jobs, woken on the
 * ingress's CPU, ran ahead of it for 1–4 ms while the other CPU sat idle, holding acks back.
 *
 * Where there is no `/proc/thread-self` (not Linux), it changes nothing and returns 0.
 */
export function lowerOtherThreadsPriority(offset = BACKGROUND_NICE_OFFSET): number {
  let self: number;
  let threads: number[];
  try {
    // "<pid>/task/<tid>": the calling thread's id, whichever thread it is.
    self = Number(readlinkSync('/proc/thread-self').split('/').pop());
    threads = readdirSync('/proc/self/task').map(Number);
  } catch {
    return 0;
  }
  const background = Math.min(LOWEST_NICE, getPriority(self) + offset);
  let changed = 0;
  for (const thread of threads) {
    if (thread === self) continue;
    try {
      if (getPriority(thread) >= background) continue;
      setPriority(thread, background);
      changed++;
    } catch {
      // It ended between the listing and now: nothing to lower.
    }
  }
  return changed;
}
