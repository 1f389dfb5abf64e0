/**
 * The entry of a pool's worker thread (`pool.ts`): runs each task it is sent and answers its value, transferring
 * the buffers the task names, or its error's name and message; loads the modules a warm-up names (`preload`) and
 * answers once they are loaded. Messages are handled one at a time, in the order they came: a warm-up answered
 * means every message before it has been handled.
 */
import { parentPort } from 'node:worker_threads';
import { loadTask } from './pool.ts';

type Message = { id: number; preload: string[] } | { id: number; module: string; name: string; input: unknown };

const port = parentPort!;

async function handle(message: Message): Promise<void> {
  const { id } = message;
  if ('preload' in message) {
    // A module that does not load fails its first task instead, with the task's error.
    await Promise.allSettled(message.preload.map((module) => import(module)));
    port.postMessage({ id, value: undefined });
    return;
  }
  try {
    const { value, transfer } = await (await loadTask(message.module, message.name))(message.input);
    port.postMessage({ id, value }, transfer ?? []);
  } catch (err) {
    const { name: errorName, message: text } = err instanceof Error ? err : { name: 'Error', message: String(err) };
    port.postMessage({ id, error: { name: errorName, message: text } });
  }
}

let handled = Promise.resolve();
port.on('message', (message: Message) => {
  handled = handled.then(() => handle(message));
});
