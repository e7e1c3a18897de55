import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { DataDirLocked, lockDataDir } from '../../src/store/folder-lock.ts';

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'payops-lock-'));
}

const fixture = new URL('../helpers/folder-lock-holder.ts', import.meta.url).pathname;
const node = [process.execPath, '--import', import.meta.resolve('tsx'), fixture];

/**
 * How a holder runs: `namespace`, as PID 1 of a PID namespace of its own (a container; killed
 * with `unshare`); `plain`, a child of this process; `unreaped`, a child of `sleep`, which never
 * reaps it, so once killed it stays a zombie.
 */
type Run = 'namespace' | 'plain' | 'unreaped';

interface Holder {
  child: ChildProcess;
  /** The holder's next line on stdout. */
  says(): Promise<string>;
}

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

function startHolder(dir: string, run: Run): Holder {
  const args = [...node, dir];
  const child =
    run === 'namespace'
      ? spawn('unshare', ['--pid', '--fork', '--mount-proc', '--kill-child', ...args])
      : run === 'unreaped'
        ? // A background job's stdin would be /dev/null: it is given ours through fd 3.
          spawn('sh', ['-c', 'exec 3<&0; "$0" "$@" <&3 3<&- & exec sleep 60', ...args])
        : spawn(args[0] as string, args.slice(1));
  started.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[
    Symbol.asyncIterator
  ]();
  return {
    child,
    async says() {
      const line = await lines.next();
      if (line.done) throw new Error('the holder ended without a word');
      return line.value;
    },
  };
}

async function exitCode(holder: Holder): Promise<number | null> {
  if (holder.child.exitCode !== null) return holder.child.exitCode;
  const [code] = await once(holder.child, 'exit');
  return code;
}

function state(pid: number): string {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] ?? '?';
}

describe('the embedded store folder lock, between processes', () => {
  it('holds across PID namespaces: a second PID 1 is refused while the first lives; once it has stopped, another starts', async () => {
    const dir = freshDir();
    const first = startHolder(dir, 'namespace');
    expect(await first.says()).toBe('locked 1');
    const second = startHolder(dir, 'namespace');
    expect(await second.says()).toMatch(/^refused .*in use by another payops process/);
    expect(await exitCode(second)).toBe(2);
    first.child.stdin?.end();
    expect(await exitCode(first)).toBe(0);
    expect(await startHolder(dir, 'namespace').says()).toBe('locked 1');
  }, 30_000);

  it('takes over at once, on this machine, from a holder that was killed and is not reaped yet', async () => {
    const dir = freshDir();
    const holder = startHolder(dir, 'unreaped');
    const pid = Number((await holder.says()).replace('locked ', ''));
    process.kill(pid, 'SIGKILL');
    while (state(pid) !== 'Z') await sleep(10);
    const startedAt = performance.now();
    expect(await startHolder(dir, 'plain').says()).toMatch(/^locked /);
    expect(state(pid)).toBe('Z');
    expect(performance.now() - startedAt).toBeLessThan(10_000);
  }, 30_000);
});

describe('the embedded store folder lock, in one process', () => {
  it('refuses a second taker in the same process, on this kernel at once', async () => {
    const dir = freshDir();
    const lock = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toThrow(DataDirLocked);
    lock.release();
  });
});
