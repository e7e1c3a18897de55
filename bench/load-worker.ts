import { parentPort } from 'node:worker_threads';
import { type LoadSpec, runLoad } from './load.ts';

/** The worker side of `LoadWorker`: one `LoadSpec` in, one `LoadResult` (or an error) out. */
parentPort?.on('message', (spec: LoadSpec) => {
  runLoad(spec).then(
    (result) => parentPort?.postMessage(result, [result.latenciesMs.buffer as ArrayBuffer]),
    (error: unknown) =>
      parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) }),
  );
});
