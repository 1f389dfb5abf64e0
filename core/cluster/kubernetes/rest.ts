import { RequestContext, type HttpMethod, type KubeConfig } from '@kubernetes/client-node';
import { fetch, type Dispatcher, type Response } from 'undici';
import { ApiError, type ApiErrorReason, type FieldCause } from '../errors.ts';

/** Content types of the write verbs the API server accepts. */
export const contentTypes = {
  json: 'application/json',
  mergePatch: 'application/merge-patch+json',
  jsonPatch: 'application/json-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

export interface StatusBody {
  kind?: string;
  reason?: string;
  message?: string;
  code?: number;
  details?: { causes?: { field?: string; message?: string }[] };
}

const reasons = new Set<ApiErrorReason>([
  'NotFound',
  'AlreadyExists',
  'Conflict',
  'Invalid',
  'BadRequest',
  'Gone',
  'Forbidden',
  'MethodNotAllowed',
  'UnsupportedMediaType',
  'InternalError',
]);

const reasonOfCode: Record<number, ApiErrorReason> = {
  400: 'BadRequest',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  409: 'Conflict',
  410: 'Gone',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
};

/**
 * Turns a Kubernetes `Status` failure into the port's ApiError. The code decides where the reason is one the
 * port does not name (`Expired` is a 410, `Unauthorized` and `Timeout` are server-side troubles for the caller).
 */
export function apiErrorFromStatus(status: StatusBody, httpCode: number): ApiError {
  const code = status.code ?? httpCode;
  const named = status.reason as ApiErrorReason | undefined;
  const reason = named && reasons.has(named) ? named : (reasonOfCode[code] ?? 'InternalError');
  const causes: FieldCause[] = (status.details?.causes ?? []).map((c) => ({
    field: c.field ?? '',
    message: c.message ?? '',
  }));
  return new ApiError(reason, status.message ?? `the API server answered ${code}`, causes);
}

/** A failure body is a Status object, except from proxies and crashes in front of the API server. */
export function parseStatus(text: string): StatusBody {
  try {
    return JSON.parse(text) as StatusBody;
  } catch {
    return { message: text.slice(0, 500) };
  }
}

/**
 * Plain REST calls to the API server. Authentication and TLS (token, client certificates, exec plugins, the
 * in-cluster service account) are the client library's: each call asks the KubeConfig to decorate it.
 */
export class RestClient {
  readonly #config: KubeConfig;
  readonly #server: string;

  constructor(config: KubeConfig) {
    const cluster = config.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.#config = config;
    this.#server = cluster.server.replace(/\/+$/, '');
  }

  /** Sends a request and returns the raw response; only transport failures throw. */
  async send(request: RestRequest): Promise<Response> {
    const url = new URL(this.#server + request.path);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    const context = new RequestContext(url.toString(), request.method as HttpMethod);
    await this.#config.applySecurityAuthentication(context);
    const headers: Record<string, string> = { ...context.getHeaders(), accept: contentTypes.json };
    if (request.body !== undefined) headers['content-type'] = request.contentType ?? contentTypes.json;
    return fetch(url, {
      method: request.method,
      headers,
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      dispatcher: context.getDispatcher() as Dispatcher | undefined,
      signal: request.signal,
    });
  }

  /** Sends a request and returns its JSON body; a failure answer becomes an ApiError. */
  async call<T>(request: RestRequest): Promise<T> {
    const response = await this.send(request);
    const text = await response.text();
    if (!response.ok) throw apiErrorFromStatus(parseStatus(text), response.status);
    return JSON.parse(text) as T;
  }
}
