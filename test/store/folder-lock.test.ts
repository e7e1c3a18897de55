import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DataDirLocked,
  DataDirLockLost,
  type FolderLockOptions,
  lockDataDir,
} from '../../src/store/folder-lock.ts';

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'payops-lock-'));
}

/** Short bounds, so that a holder that is gone is found so in two seconds. */
const FAST = { heartbeatMs: 200, staleMs: 2_000 };
/** As on another host: no kernel lock shared with the other process, only the heartbeat. */
const OTHER_HOST = { ...FAST, kernelLock: false };

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

function startHolder(dir: string, options: FolderLockOptions, run: Run): Holder {
  const args = [...node, dir, JSON.stringify(options)];
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
    const first = startHolder(dir, {}, 'namespace');
    expect(await first.says()).toBe('locked 1');
    const second = startHolder(dir, {}, 'namespace');
    expect(await second.says()).toMatch(/^refused .*in use by another payops process/);
    expect(await exitCode(second)).toBe(2);
    first.child.stdin?.end();
    expect(await exitCode(first)).toBe(0);
    expect(await startHolder(dir, {}, 'namespace').says()).toBe('locked 1');
  }, 30_000);

  it('holds between hosts sharing the volume: the second is refused on seeing the first’s heartbeat', async () => {
    const dir = freshDir();
    const first = startHolder(dir, OTHER_HOST, 'namespace');
    expect(await first.says()).toBe('locked 1');
    const second = startHolder(dir, OTHER_HOST, 'namespace');
    expect(await second.says()).toMatch(
      /^refused .*in use by another payops process \(pid 1\) on host /,
    );
  }, 30_000);

  it('takes over at once, on this machine, from a holder that was killed and is not reaped yet', async () => {
    const dir = freshDir();
    const holder = startHolder(dir, {}, 'unreaped');
    const pid = Number((await holder.says()).replace('locked ', ''));
    process.kill(pid, 'SIGKILL');
    while (state(pid) !== 'Z') await sleep(10);
    const startedAt = performance.now();
    // Default bounds: had it waited for the heartbeat to go stale, 20 s.
    expect(await startHolder(dir, {}, 'plain').says()).toMatch(/^locked /);
    expect(state(pid)).toBe('Z');
    expect(performance.now() - startedAt).toBeLessThan(10_000);
  }, 30_000);

  it('takes over from a holder on another host that was killed, once its lock has stayed unchanged for the stale bound', async () => {
    const dir = freshDir();
    const holder = startHolder(dir, OTHER_HOST, 'plain');
    expect(await holder.says()).toMatch(/^locked /);
    holder.child.kill('SIGKILL');
    await exitCode(holder);
    const startedAt = performance.now();
    expect(await startHolder(dir, OTHER_HOST, 'plain').says()).toMatch(/^locked /);
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(FAST.staleMs);
  }, 30_000);

  it('a holder paused past the stale bound and taken over finds it lost and stops, leaving the new holder’s lock', async () => {
    const dir = freshDir();
    const paused = startHolder(dir, OTHER_HOST, 'plain');
    expect(await paused.says()).toMatch(/^locked /);
    paused.child.kill('SIGSTOP');
    const next = startHolder(dir, OTHER_HOST, 'plain');
    const nextPid = Number((await next.says()).replace('locked ', ''));
    paused.child.kill('SIGCONT');
    expect(await paused.says()).toBe('lost');
    expect(await exitCode(paused)).toBe(3);
    expect(JSON.parse(readFileSync(join(dir, 'payops.lock'), 'utf8')).pid).toBe(nextPid);
  }, 30_000);
});

describe('the embedded store folder lock, in one process', () => {
  const foreign = JSON.stringify({ owner: 'f'.repeat(32), host: 'elsewhere', pid: 1, beat: 7 });

  it('is removed on release while it is ours', async () => {
    const dir = freshDir();
    const lock = await lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, 'payops.lock'), 'utf8')).pid).toBe(process.pid);
    lock.release();
    expect(() => readFileSync(join(dir, 'payops.lock'))).toThrow(/ENOENT/);
  });

  it('is left alone on release once another process holds it', async () => {
    const dir = freshDir();
    const lock = await lockDataDir(dir, OTHER_HOST);
    writeFileSync(join(dir, 'payops.lock'), foreign);
    lock.release();
    expect(readFileSync(join(dir, 'payops.lock'), 'utf8')).toBe(foreign);
  });

  it('found held by another at a heartbeat is lost: said once, and refused from then on', async () => {
    const dir = freshDir();
    const losses: DataDirLockLost[] = [];
    const lock = await lockDataDir(dir, {
      ...OTHER_HOST,
      heartbeatMs: 50,
      onLost: (error) => losses.push(error),
    });
    writeFileSync(join(dir, 'payops.lock'), foreign);
    await sleep(300);
    expect(losses).toHaveLength(1);
    expect(losses[0]?.message).toMatch(/now held by another process \(pid 1\) on host elsewhere/);
    expect(() => lock.assertHeld()).toThrow(DataDirLockLost);
    lock.release();
  });

  it('refuses a second taker in the same process, on this kernel at once', async () => {
    const dir = freshDir();
    const lock = await lockDataDir(dir);
    await expect(lockDataDir(dir)).rejects.toThrow(DataDirLocked);
    lock.release();
  });

  it('is not taken over from an earlier payops version, whose bare pid cannot be checked', async () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'payops.lock'), '1');
    await expect(lockDataDir(dir, FAST)).rejects.toThrow(/earlier payops version \(pid 1\)/);
  });
});
