import { once } from 'node:events';
import { extname } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` that sits next to the caller (`besides`: the
 * caller's `import.meta.url`), with the caller's extension: `.ts` when the sources run, `.js`
 * once built. A worker does not inherit the parent's `--import tsx`, so a TypeScript entry
 * registers tsx first; a built `.js` entry is imported directly.
 */
export function startModuleWorker(
  besides: string,
  name: string,
  options: Omit<WorkerOptions, 'eval'> = {},
): Worker {
  const entry = new URL(`./${name}${extname(new URL(besides).pathname)}`, besides);
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** The worker's first message; rejects if it fails or exits before sending one. */
export async function firstMessage(worker: Worker): Promise<unknown> {
  const [message] = await Promise.race([
    once(worker, 'message'),
    once(worker, 'exit').then(([code]) => {
      throw new Error(`the worker thread exited (code ${code}) before it said anything`);
    }),
  ]);
  return message;
}
