import { authorizationHeader, httpGet, type HttpGetOptions } from '../http.ts';
import { httpOptions } from '../options.ts';
import { RunError } from '../../runs/errors.ts';
import type { FeatureRequest } from './provider.ts';

/**
 * GET for feature providers: the shared retry policy and the request's credentials. The shared client calls a
 * 404 an unpublished period; for a feature source it means the source itself is gone.
 */
export async function fetchSource(
  provider: string,
  url: string,
  request: FeatureRequest,
  headers: Record<string, string> = {},
): Promise<Uint8Array> {
  const options: HttpGetOptions = {
    ...httpOptions(provider, request.parameters, request.signal),
    headers: { ...headers, ...(request.credentials && authorizationHeader(request.credentials)) },
  };
  try {
    return (await httpGet(url, options)).bytes;
  } catch (err) {
    if (err instanceof RunError && err.code === 'PeriodUnavailable')
      throw new RunError('SourceNotFound', `${url} does not exist (HTTP 404 or 410)`);
    throw err;
  }
}
