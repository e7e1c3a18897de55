import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirLocked, lockDataDir } from '../../src/store/pglite.ts';

function freshDir(): string {
  return mkdtempSync(join(tmpdir(), 'payops-lock-'));
}

describe('the embedded store folder lock', () => {
  it('is taken by one process and released on close', () => {
    const dir = freshDir();
    const release = lockDataDir(dir);
    expect(readFileSync(join(dir, 'payops.lock'), 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(join(dir, 'payops.lock'))).toBe(false);
  });

  it('refuses while another live process holds it, naming the folder', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'payops.lock'), String(process.ppid));
    expect(() => lockDataDir(dir)).toThrow(DataDirLocked);
    expect(() => lockDataDir(dir)).toThrow(dir);
  });

  it('takes over a lock left by a process that is gone', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'payops.lock'), '999999999');
    lockDataDir(dir)();
  });

  it("takes over a lock holding its own pid (a restarted container's process 1)", () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'payops.lock'), String(process.pid));
    expect(() => lockDataDir(dir)).not.toThrow();
  });

  it('refuses while another process is in the middle of a takeover', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'payops.lock'), '999999999');
    writeFileSync(join(dir, 'payops.lock.takeover'), '999999998');
    expect(() => lockDataDir(dir)).toThrow(/taking over/);
  });
});
