/**
 * The entry of a synchronous run's worker thread (`runner.ts`): it takes one run's input, answers the encoded body
 * (its buffer transferred), an engine refusal (code and message) or another failure, and is then terminated.
 */
import { parentPort } from 'node:worker_threads';
import { configureProcessPool } from '../../workers/pool.ts';
import { isProcessingError } from '../errors.ts';
import { runSynchronously, type SyncRunInput } from './run.ts';
import type { SyncMessage } from './runner.ts';

// The engine's tasks run inline on this thread: its resource limits then bound the whole run, and concurrent runs
// do not each start a pool of a thread per core (the server's own pool serves its other routes).
configureProcessPool(0);

const port = parentPort!;

port.once('message', async (input: SyncRunInput) => {
  let message: SyncMessage;
  try {
    const answer = await runSynchronously(input);
    port.postMessage({ answer } satisfies SyncMessage, [answer.body.buffer]);
    return;
  } catch (err) {
    if (isProcessingError(err)) message = { refusal: { code: err.code, message: err.message } };
    else {
      const { name, message: text } = err instanceof Error ? err : { name: 'Error', message: String(err) };
      message = { failure: { name, message: text } };
    }
  }
  port.postMessage(message);
});
