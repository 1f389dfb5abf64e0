/**
 * The floor of any Node.js server for `bench/zarr-serving.ts`: bare `node:http` answering each chunk path with the
 * bytes of its file, read into memory at start, and the headers Stratus sends with a chunk (made once by Stratus's
 * own `entityResponse`, with its CORS headers, and its request id per answer), with no other logic: no lookup but
 * one `Map` get, no validation, no conditional request, no log, no metric. It runs
 * in N processes that accept on one listening socket, as Stratus's API processes do (docs/adr/0010), so the
 * difference between this row and nginx's is what Node's HTTP stack costs, and the difference between this row
 * and Stratus's is what Stratus adds.
 *
 * `node bench/chunk-floor.ts DIR PREFIX PROCESSES` serves `PREFIX<path>` from `DIR/<path>` for every file under
 * `DIR`, prints its URL once every process listens, and serves until killed.
 */
import { fork } from 'node:child_process';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { requestIdOf } from '../api-server/plugins/app/log-context.ts';
import { CORS_HEADERS_WITHOUT_ORIGIN } from '../api-server/plugins/external/cors.ts';
import { entityResponse, fileEntity } from '../api-server/services/files/entity.ts';

const [dir, prefix, count] = process.argv.slice(2) as [string, string, string];

async function answers(): Promise<Map<string, { headers: Record<string, string | number>; body: Buffer }>> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  const map = new Map<string, { headers: Record<string, string | number>; body: Buffer }>();
  for (const file of files) {
    const path = join(file.parentPath, file.name);
    const [body, info] = await Promise.all([readFile(path), stat(path)]);
    // Stratus's own answer to a plain GET of the file, made once: the same headers, byte for byte in form.
    const entity = fileEntity(
      path,
      { size: info.size, mtime: info.mtime, bytes: body },
      {
        contentType: 'application/octet-stream',
        etagPrefix: 'v1',
      },
    );
    const { headers } = entityResponse({ method: 'GET', headers: {} }, entity);
    map.set(`${prefix}${relative(dir, path)}`, { body, headers: { ...CORS_HEADERS_WITHOUT_ORIGIN, ...headers } });
  }
  return map;
}

async function serve(): Promise<Server> {
  const byPath = await answers();
  return createServer((request, response) => {
    const answer = byPath.get(request.url ?? '');
    if (answer === undefined) {
      response.writeHead(404);
      return void response.end();
    }
    response.writeHead(200, { ...answer.headers, 'x-request-id': requestIdOf(request) });
    response.end(answer.body);
  });
}

if (process.argv[5] === 'child') {
  const server = await serve();
  process.once('disconnect', () => process.exit(0));
  process.once('message', (_message, handle) => {
    server.listen(handle as Server, () => process.send!('listening'));
  });
  process.send!('ready');
} else {
  const server = await serve();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const children = Array.from({ length: Number(count) - 1 }, () =>
    fork(import.meta.filename, [dir, prefix, count, 'child'], { stdio: 'inherit' }),
  );
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.on('message', (message) => {
            if (message === 'ready') child.send('listen', server);
            else if (message === 'listening') resolve();
          });
        }),
    ),
  );
  process.once('SIGTERM', () => {
    for (const child of children) child.kill('SIGTERM');
    process.exit(0);
  });
  console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
}
