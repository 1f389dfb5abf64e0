/**
 * The entry of a pool's worker thread (`pool.ts`): runs each task it is sent and answers its value, transferring
 * the buffers the task names, or its error's name and message. Tasks run one at a time.
 */
import { parentPort } from 'node:worker_threads';
import { loadTask } from './pool.ts';

const port = parentPort!;

port.on(
  'message',
  async ({ id, module, name, input }: { id: number; module: string; name: string; input: unknown }) => {
    try {
      const { value, transfer } = await (await loadTask(module, name))(input);
      port.postMessage({ id, value }, transfer ?? []);
    } catch (err) {
      const { name: errorName, message } = err instanceof Error ? err : { name: 'Error', message: String(err) };
      port.postMessage({ id, error: { name: errorName, message } });
    }
  },
);
