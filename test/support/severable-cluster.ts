import { ApiError } from '../../core/cluster/errors.ts';
import type { Cluster } from '../../core/cluster/port.ts';

/**
 * A Cluster whose connection a test can cut: after `sever()` every call fails as if the API server were
 * unreachable, the way a partitioned or frozen process sees it.
 */
export function severableCluster(cluster: Cluster): { cluster: Cluster; sever(): void } {
  let severed = false;
  const proxy = new Proxy(cluster, {
    get(target, property, receiver) {
      const member = Reflect.get(target, property, receiver) as unknown;
      if (typeof member !== 'function') return member;
      return (...args: unknown[]) => {
        if (severed) return Promise.reject(new ApiError('InternalError', 'connection to the API server severed'));
        return (member as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { cluster: proxy, sever: () => (severed = true) };
}
