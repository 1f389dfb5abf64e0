/**
 * The messages by which a process reaches the Cluster port of the process that owns the store, over a Node IPC
 * channel (a forked child's `process.send`, the parent's `child.send`). Every message carries `stratusCluster`, so
 * the channel may carry other messages beside these.
 */
import { ApiError, type ApiErrorReason, type FieldCause } from '../errors.ts';
import type { Cluster, WatchEvent } from '../port.ts';

/** The verbs answered by one reply; `watch` is a stream of its own. */
export type CallMethod = Exclude<keyof Cluster, 'watch'>;

export const CALL_METHODS: readonly CallMethod[] = [
  'get',
  'list',
  'create',
  'update',
  'patch',
  'apply',
  'updateStatus',
  'patchStatus',
  'delete',
];

/** An error as it crosses the channel: an ApiError keeps its reason and causes, any other error its message. */
export type WireError =
  { type: 'api'; reason: ApiErrorReason; message: string; causes: FieldCause[] } | { type: 'other'; message: string };

/** From the process that serves the API to the owner of the store. */
export type ToOwner =
  | { stratusCluster: 'call'; id: number; method: CallMethod; args: unknown[] }
  | { stratusCluster: 'watch'; id: number; args: unknown[] }
  | { stratusCluster: 'unwatch'; id: number };

/** From the owner of the store back: one reply per call; events then an end (or an error) per watch. */
export type FromOwner =
  | { stratusCluster: 'reply'; id: number; value: unknown }
  | { stratusCluster: 'failed'; id: number; error: WireError }
  | { stratusCluster: 'event'; id: number; event: WatchEvent }
  | { stratusCluster: 'ended'; id: number; error?: WireError };

/** What both ends need of a channel: `ChildProcess` and `process` (in a forked child) are both one. */
export interface Channel {
  /** With a callback, a failed send (the other end just went) is reported there instead of as an 'error' event. */
  send(message: unknown, callback: (error: Error | null) => void): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
  off(event: 'disconnect', listener: () => void): unknown;
  readonly connected: boolean;
}

/**
 * The callback of every send: a message the other end cannot receive any more needs no report, since the channel's
 * 'disconnect' ends what was waiting for it.
 */
export function sent(): void {}

export function isClusterMessage<T extends ToOwner | FromOwner>(message: unknown): message is T {
  return typeof message === 'object' && message !== null && 'stratusCluster' in message;
}

export function toWire(err: unknown): WireError {
  if (err instanceof ApiError) return { type: 'api', reason: err.reason, message: err.message, causes: err.causes };
  return { type: 'other', message: err instanceof Error ? err.message : String(err) };
}

export function fromWire(wire: WireError): Error {
  return wire.type === 'api' ? new ApiError(wire.reason, wire.message, wire.causes) : new Error(wire.message);
}
