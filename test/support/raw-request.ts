import { request as httpRequest } from 'node:http';

/** The status of a GET of `path` on `base`, with the path sent byte for byte (fetch would normalize `..` away). */
export function rawStatus(base: string, path: string): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolveStatus, reject) => {
    const req = httpRequest({ host: hostname, port, path, method: 'GET' }, (res) => {
      res.resume();
      resolveStatus(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}
