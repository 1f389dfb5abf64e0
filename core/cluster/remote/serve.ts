import type { Cluster, WatchOptions } from '../port.ts';
import type { KindRef } from '../objects.ts';
import {
  CALL_METHODS,
  isClusterMessage,
  sent,
  toWire,
  type Channel,
  type FromOwner,
  type ToOwner,
} from './protocol.ts';

export interface ServedCluster {
  /** Stops answering the channel and ends the watches it opened. */
  stop(): void;
}

/**
 * Answers the Cluster port calls that arrive on `channel` (from a process holding a `RemoteCluster`) with
 * `cluster`, and streams the watches it asks for until it unwatches or the channel closes. A watch is subscribed
 * as its message arrives, so a write the other process sends after opening it is always among its events.
 */
export function serveCluster(cluster: Cluster, channel: Channel): ServedCluster {
  const watches = new Map<number, AbortController>();
  const send = (message: FromOwner) => {
    if (channel.connected) channel.send(message, sent);
  };

  const call = async (id: number, method: (typeof CALL_METHODS)[number], args: unknown[]) => {
    try {
      const fn = cluster[method] as (...a: unknown[]) => Promise<unknown>;
      // JSON turns an omitted argument inside the array into null: no argument of the port is null on purpose.
      send({
        stratusCluster: 'reply',
        id,
        value: await fn.apply(
          cluster,
          args.map((arg) => arg ?? undefined),
        ),
      });
    } catch (err) {
      send({ stratusCluster: 'failed', id, error: toWire(err) });
    }
  };

  const watch = async (id: number, [kind, options]: unknown[]) => {
    const controller = new AbortController();
    watches.set(id, controller);
    try {
      const events = cluster.watch(kind as KindRef, { ...(options as WatchOptions), signal: controller.signal });
      for await (const event of events) send({ stratusCluster: 'event', id, event });
      send({ stratusCluster: 'ended', id });
    } catch (err) {
      send({ stratusCluster: 'ended', id, error: toWire(err) });
    } finally {
      watches.delete(id);
    }
  };

  const onMessage = (message: unknown) => {
    if (!isClusterMessage<ToOwner>(message)) return;
    if (message.stratusCluster === 'call' && CALL_METHODS.includes(message.method))
      void call(message.id, message.method, message.args);
    else if (message.stratusCluster === 'watch') void watch(message.id, message.args);
    else if (message.stratusCluster === 'unwatch') watches.get(message.id)?.abort();
  };
  const stop = () => {
    channel.off('message', onMessage);
    channel.off('disconnect', stop);
    for (const controller of watches.values()) controller.abort();
  };
  channel.on('message', onMessage);
  channel.on('disconnect', stop);
  return { stop };
}
