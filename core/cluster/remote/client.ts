import { ApiError } from '../errors.ts';
import type { KindRef, KubeObject } from '../objects.ts';
import type { Cluster, WatchEvent, WatchOptions } from '../port.ts';
import { WatchQueue } from '../watch-queue.ts';
import {
  fromWire,
  isClusterMessage,
  sent,
  type CallMethod,
  type Channel,
  type FromOwner,
  type ToOwner,
} from './protocol.ts';

export interface RemoteCluster extends Cluster {
  /** Stops listening to the channel; calls and watches still open fail as when the owner is gone. */
  close(): void;
}

const ownerGone = () => new ApiError('InternalError', 'the process that owns the store is gone');

/**
 * The Cluster port of another process, reached over an IPC channel (`core/cluster/remote/serve.ts` answers there):
 * every call is forwarded and its answer or ApiError comes back as it was; a watch is a stream that ends when
 * aborted. Once the channel closes, every open call and watch fails with a retriable `InternalError`, as a broken
 * connection to a Kubernetes API server does.
 */
export function remoteCluster(channel: Channel): RemoteCluster {
  let nextId = 1;
  const calls = new Map<number, { resolve: (value: unknown) => void; reject: (err: unknown) => void }>();
  const watches = new Map<number, WatchQueue>();
  let closed = false;

  const send = (message: ToOwner) => {
    if (!channel.connected) throw ownerGone();
    channel.send(message, sent);
  };

  const onMessage = (message: unknown) => {
    if (!isClusterMessage<FromOwner>(message)) return;
    const { id } = message;
    if (message.stratusCluster === 'reply' || message.stratusCluster === 'failed') {
      const call = calls.get(id);
      calls.delete(id);
      if (message.stratusCluster === 'reply') call?.resolve(message.value);
      else call?.reject(fromWire(message.error));
    } else if (message.stratusCluster === 'event') watches.get(id)?.push(message.event);
    else {
      // Ended by the owner: forgotten first, so that closing the queue sends no unwatch.
      const queue = watches.get(id);
      watches.delete(id);
      if (message.error) queue?.fail(fromWire(message.error));
      else queue?.close();
    }
  };
  const close = () => {
    if (closed) return;
    closed = true;
    channel.off('message', onMessage);
    channel.off('disconnect', close);
    for (const call of calls.values()) call.reject(ownerGone());
    calls.clear();
    for (const queue of watches.values()) queue.fail(ownerGone());
  };
  channel.on('message', onMessage);
  channel.on('disconnect', close);

  const call = <R>(method: CallMethod, ...args: unknown[]): Promise<R> =>
    new Promise<R>((resolve, reject) => {
      if (closed) return reject(ownerGone());
      const id = nextId++;
      calls.set(id, { resolve: resolve as (value: unknown) => void, reject });
      try {
        send({ stratusCluster: 'call', id, method, args });
      } catch (err) {
        calls.delete(id);
        reject(err);
      }
    });

  const watch = <T extends KubeObject>(kind: KindRef, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> => {
    const { signal, ...rest } = options;
    const id = nextId++;
    const queue = new WatchQueue(() => {
      if (!watches.delete(id)) return;
      // Ended here (aborted or left early): the owner stops streaming it.
      if (channel.connected && !closed) channel.send({ stratusCluster: 'unwatch', id } satisfies ToOwner, sent);
    });
    watches.set(id, queue);
    if (closed) queue.fail(ownerGone());
    else if (signal?.aborted) queue.close();
    else {
      signal?.addEventListener('abort', () => queue.close(), { once: true });
      try {
        send({ stratusCluster: 'watch', id, args: [kind, rest] });
      } catch (err) {
        queue.fail(err);
      }
    }
    return queue as AsyncIterable<WatchEvent<T>>;
  };

  return {
    get: (kind, name, namespace) => call('get', kind, name, namespace),
    list: (kind, options) => call('list', kind, options),
    create: (kind, object, options) => call('create', kind, object, options),
    update: (kind, object, options) => call('update', kind, object, options),
    patch: (kind, name, patch, namespace, options) => call('patch', kind, name, patch, namespace, options),
    apply: (kind, object, options) => call('apply', kind, object, options),
    updateStatus: (kind, object, options) => call('updateStatus', kind, object, options),
    patchStatus: (kind, name, patch, namespace, options) => call('patchStatus', kind, name, patch, namespace, options),
    delete: (kind, name, namespace, options) => call('delete', kind, name, namespace, options),
    watch,
    close,
  };
}
