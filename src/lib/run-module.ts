import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { extname } from 'node:path';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * Runs a module that sits next to the caller (`besides`: the caller's `import.meta.url`), with
 * the caller's extension — `.ts` when the sources run, `.js` once built — in a worker thread or
 * in a child process. Neither inherits the parent's `--import tsx`, so a TypeScript entry
 * registers tsx first; a built `.js` entry is loaded directly.
 */

function siblingModule(besides: string, name: string): URL {
  return new URL(`./${name}${extname(new URL(besides).pathname)}`, besides);
}

function isTypeScript(entry: URL): boolean {
  return entry.pathname.endsWith('.ts');
}

export function startModuleWorker(
  besides: string,
  name: string,
  options: Omit<WorkerOptions, 'eval'> = {},
): Worker {
  const entry = siblingModule(besides, name);
  if (!isTypeScript(entry)) return new Worker(entry, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

/** A child process with an IPC channel, its stderr shared with ours, killed after `timeoutMs`. */
export function forkModule(
  besides: string,
  name: string,
  args: string[],
  options: { timeoutMs: number },
): ChildProcess {
  const entry = siblingModule(besides, name);
  return fork(entry, args, {
    execArgv: isTypeScript(entry) ? ['--import', import.meta.resolve('tsx')] : [],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    timeout: options.timeoutMs,
  });
}

/** The first message of a worker or child; rejects if it fails or ends before sending one. */
export async function firstMessage(runner: Worker | ChildProcess): Promise<unknown> {
  // A child's 'close' comes after its IPC channel is drained, so a last message is not lost.
  const ended = runner instanceof Worker ? 'exit' : 'close';
  const [message] = await Promise.race([
    once(runner, 'message'),
    once(runner, ended).then(([code, signal]) => {
      const how = signal ? `signal ${signal}` : `code ${code}`;
      throw new Error(`it ended (${how}) before it said anything`);
    }),
  ]);
  return message;
}
