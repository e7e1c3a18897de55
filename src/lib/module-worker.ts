import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running an ES module of this repository. A worker does not inherit the
 * parent's `--import tsx`, so a TypeScript entry (the sources run as-is) registers tsx first;
 * a built `.js` entry is imported directly.
 */
export function startModuleWorker(entry: URL, options: Omit<WorkerOptions, 'eval'> = {}): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
