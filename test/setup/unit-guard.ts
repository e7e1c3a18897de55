import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import { vi } from 'vitest';

/**
 * The unit project's setup (vitest.config.ts): a unit test runs in memory, on the code and
 * fakes (test/fakes/) alone. Starting a server, opening a connection (an HTTP client, `pg`),
 * running a child process or opening PGlite throws, so a file that needs one is moved to the
 * integration project rather than slowing the tier that answers in seconds.
 */

function refuse(what: string): never {
  throw new Error(
    `A unit test does not ${what}: use a fake (test/fakes/), or list the file in vitest.config.ts's INTEGRATION.`,
  );
}

net.Server.prototype.listen = () => refuse('start a server');
net.Socket.prototype.connect = () => refuse('open a connection');
const children = childProcess as unknown as Record<string, unknown>;
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  children[name] = () => refuse('run a child process');
}
// ESM imports of node:child_process see the replacements too.
syncBuiltinESMExports();

vi.mock('@electric-sql/pglite', async (importOriginal) => ({
  ...(await importOriginal<object>()),
  PGlite: class {
    static create(): never {
      refuse('open a database (PGlite)');
    }
    constructor() {
      refuse('open a database (PGlite)');
    }
  },
}));
