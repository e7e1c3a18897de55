/**
 * `npm start` preloads this (`--require=./dist/idle-node-threads.cjs`), before any of payops and
 * before libuv's thread pool exists: every thread the process has then but the main one is
 * Node's own — V8's platform workers, their delayed-task thread and the inspector's signal
 * thread. Each is put under SCHED_IDLE, the Linux policy that a woken ordinary thread preempts
 * at once.
 *
 * Why: the platform workers run V8's background compile jobs (TurboFan), and, with
 * --single-threaded-gc, nothing else that matters. Traced in the benchmark (session 7,
 * `perf sched`): a compile job, once the scheduler had picked it, ran its 0.6–3.2 ms slice on
 * the ingress's CPU while the acknowledgement it held back waited — nice +10 did not change
 * that, SCHED_IDLE does. They still run whenever a CPU has nothing else to do; on a CPU busy
 * for seconds on end they wait, and the code they would have optimised keeps running as it is
 * meanwhile.
 *
 * Linux only, through `chrt` (util-linux and busybox both have it): Node has no call for
 * scheduling policies. Elsewhere it does nothing; where `chrt` fails, payops runs as before
 * and warns once.
 */
import childProcess = require('node:child_process');
import fs = require('node:fs');
import workerThreads = require('node:worker_threads');

// Node preloads this in every worker thread too, by then with the engine thread and libuv's
// pool among the process's threads: only the main thread's early moment is the one meant.
if (process.platform === 'linux' && workerThreads.isMainThread) idleNodeThreads();

function idleNodeThreads(): void {
  const threads = fs
    .readdirSync('/proc/self/task')
    .map(Number)
    .filter((thread) => thread !== process.pid);
  try {
    for (const thread of threads) {
      // Short options: busybox's chrt has no long ones.
      childProcess.execFileSync('chrt', ['-i', '-p', '0', String(thread)], {
        stdio: 'ignore',
      });
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.emitWarning(
      "payops: V8's helper threads keep their usual priority, and acknowledgements may wait " +
        `behind their compile jobs (chrt -i failed: ${reason})`,
    );
  }
}
