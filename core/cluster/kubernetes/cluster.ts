import type { KindRef, KubeObject } from '../objects.ts';
import {
  STRATUS_FIELD_MANAGER,
  type Cluster,
  type DeleteOptions,
  type ListOptions,
  type ObjectList,
  type Patch,
  type WatchEvent,
  type WatchOptions,
  type WriteOptions,
} from '../port.ts';
import { isApiError } from '../errors.ts';
import { collectionPath, DEFAULT_NAMESPACE, objectPath } from './paths.ts';
import { contentTypes, type RestClient, type RestRequest } from './rest.ts';
import { watchKind, type WatchTimings } from './watch.ts';

/** The field manager of every write that names none: the operator's, as `kubectl` shows it in managedFields. */

/** Objects per page when listing: large collections come in pieces that share one snapshot. */
const LIST_PAGE_SIZE = 500;

interface WireList {
  metadata: { resourceVersion: string; continue?: string };
  items: KubeObject[];
}

/**
 * The Cluster port on a real Kubernetes API server. The server is the authority on every rule of the port
 * (compare-and-swap, generation, status subresource, finalizers); this adapter only translates. Declarative
 * `apply` is server-side apply with ownership forced, as controllers do: the operator owns what it applies.
 */
export class KubernetesCluster implements Cluster {
  readonly #rest: RestClient;
  readonly #watchTimings: WatchTimings;

  constructor(rest: RestClient, watchTimings: WatchTimings) {
    this.#rest = rest;
    this.#watchTimings = watchTimings;
  }

  /** The API server's version (`/version`), which every authenticated client may read. */
  serverVersion(): Promise<{ major: string; minor: string; gitVersion: string }> {
    return this.#rest.call({ method: 'GET', path: '/version' });
  }

  async get<T extends KubeObject>(kind: KindRef, name: string, namespace?: string): Promise<T | undefined> {
    try {
      return withType(kind, await this.#rest.call<T>({ method: 'GET', path: objectPath(kind, name, namespace) }));
    } catch (err) {
      if (isApiError(err, 'NotFound')) return undefined;
      throw err;
    }
  }

  async list<T extends KubeObject>(kind: KindRef, options: ListOptions = {}): Promise<ObjectList<T>> {
    const items: T[] = [];
    let page: WireList;
    let continueToken: string | undefined;
    do {
      page = await this.#rest.call<WireList>({
        method: 'GET',
        path: collectionPath(kind, options.namespace),
        query: { labelSelector: options.labelSelector, limit: String(LIST_PAGE_SIZE), continue: continueToken },
      });
      // List items come without apiVersion and kind for built-in kinds.
      for (const item of page.items) items.push(withType(kind, item as T));
      continueToken = page.metadata.continue || undefined;
    } while (continueToken);
    return { items, resourceVersion: page.metadata.resourceVersion };
  }

  async create<T extends KubeObject>(kind: KindRef, object: T, options?: WriteOptions): Promise<T> {
    const namespace = namespaceOf(kind, object.metadata?.namespace);
    const body = { ...object, apiVersion: kind.apiVersion, kind: kind.kind };
    return this.#write<T>(kind, { method: 'POST', path: collectionPath(kind, namespace), body }, options);
  }

  async update<T extends KubeObject>(kind: KindRef, object: T, options?: WriteOptions): Promise<T> {
    const { name, namespace } = object.metadata;
    const body = { ...object, apiVersion: kind.apiVersion, kind: kind.kind };
    return this.#write<T>(kind, { method: 'PUT', path: objectPath(kind, name, namespace), body }, options);
  }

  async patch<T extends KubeObject>(
    kind: KindRef,
    name: string,
    patch: Patch,
    namespace?: string,
    options?: WriteOptions,
  ): Promise<T> {
    return this.#write<T>(kind, patchRequest(objectPath(kind, name, namespace), patch), options);
  }

  async apply<T extends KubeObject>(kind: KindRef, object: T, options?: WriteOptions): Promise<T> {
    // A resourceVersion in an apply body is a precondition; apply means "these fields, whatever is stored".
    const {
      resourceVersion: _rv,
      managedFields: _mf,
      ...metadata
    } = object.metadata as T['metadata'] & {
      managedFields?: unknown;
    };
    const body = { ...object, apiVersion: kind.apiVersion, kind: kind.kind, metadata };
    return this.#write<T>(
      kind,
      {
        method: 'PATCH',
        path: objectPath(kind, object.metadata.name, object.metadata.namespace),
        body,
        contentType: contentTypes.apply,
        query: { force: 'true' },
      },
      options,
    );
  }

  async updateStatus<T extends KubeObject>(kind: KindRef, object: T, options?: WriteOptions): Promise<T> {
    const { name, namespace } = object.metadata;
    const body = { ...object, apiVersion: kind.apiVersion, kind: kind.kind };
    return this.#write<T>(kind, { method: 'PUT', path: objectPath(kind, name, namespace, 'status'), body }, options);
  }

  async patchStatus<T extends KubeObject>(
    kind: KindRef,
    name: string,
    patch: Patch,
    namespace?: string,
    options?: WriteOptions,
  ): Promise<T> {
    return this.#write<T>(kind, patchRequest(objectPath(kind, name, namespace, 'status'), patch), options);
  }

  async delete<T extends KubeObject>(
    kind: KindRef,
    name: string,
    namespace?: string,
    options: DeleteOptions = {},
  ): Promise<T | undefined> {
    const answer = await this.#rest.call<T | { kind: 'Status' }>({
      method: 'DELETE',
      path: objectPath(kind, name, namespace),
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: options.propagationPolicy ?? 'Background',
        ...(options.resourceVersion ? { preconditions: { resourceVersion: options.resourceVersion } } : {}),
      },
    });
    // The server answers with the object as deleted, or as it stays while finalizers hold it.
    if (answer.kind === 'Status') return undefined;
    const object = answer as T;
    return object.metadata.deletionTimestamp && (object.metadata.finalizers ?? []).length > 0
      ? withType(kind, object)
      : undefined;
  }

  watch<T extends KubeObject>(kind: KindRef, options: WatchOptions = {}): AsyncIterable<WatchEvent<T>> {
    return watchKind<T>(this.#rest, kind, options, this.#watchTimings);
  }

  async #write<T extends KubeObject>(
    kind: KindRef,
    request: RestRequest,
    options: WriteOptions | undefined,
  ): Promise<T> {
    const query = { ...request.query, fieldManager: options?.fieldManager ?? STRATUS_FIELD_MANAGER };
    return withType(kind, await this.#rest.call<T>({ ...request, query }));
  }
}

function namespaceOf(kind: KindRef, namespace: string | undefined): string | undefined {
  return kind.namespaced ? namespace || DEFAULT_NAMESPACE : undefined;
}

function withType<T extends KubeObject>(kind: KindRef, object: T): T {
  return { ...object, apiVersion: kind.apiVersion, kind: kind.kind };
}

function patchRequest(path: string, patch: Patch): RestRequest {
  return {
    method: 'PATCH',
    path,
    body: patch.body,
    contentType: patch.type === 'merge' ? contentTypes.mergePatch : contentTypes.jsonPatch,
  };
}
