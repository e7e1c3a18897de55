import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { firstMessage } from '../../src/lib/run-module.ts';

describe('the first message of a child process', () => {
  it('is its message when it says one and ends', async () => {
    const child = spawn(
      process.execPath,
      ['-e', "process.send('created', () => process.disconnect())"],
      {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      },
    );
    await expect(firstMessage(child)).resolves.toBe('created');
  });

  it('is an error naming the signal when the child is killed before it says anything', async () => {
    const child = spawn(process.execPath, ['-e', "process.kill(process.pid, 'SIGKILL')"], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    await expect(firstMessage(child)).rejects.toThrow(
      'it ended (signal SIGKILL) before it said anything',
    );
    // Ended by a signal, it has no exit code: a wait for 'exit' keyed on exitCode alone would hang.
    expect(child.exitCode).toBeNull();
    expect(child.signalCode).toBe('SIGKILL');
  });
});
