import { randomBytes } from 'node:crypto';

/**
 * Random hex for the sandboxes' ids (response_urls, trigger ids, resource ids), cut from a
 * pooled buffer: they make several per request, and one `randomBytes` call each was about 5 %
 * of the benchmark process's CPU, which shares two cores with the bot it measures.
 */

const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

export function randomHex(bytes: number): string {
  if (used + bytes > pool.length) {
    pool = randomBytes(Math.max(POOL_BYTES, bytes));
    used = 0;
  }
  const hex = pool.toString('hex', used, used + bytes);
  used += bytes;
  return hex;
}
