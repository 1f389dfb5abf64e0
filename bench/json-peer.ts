/**
 * The API benchmark's peer, a process of its own (`node bench/json-peer.ts BODIES.json`): a bare `node:http` server
 * answering each path with the bytes the file maps it to, as JSON. It prints its URL, then serves until killed.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const bodies = new Map(
  Object.entries(JSON.parse(await readFile(process.argv[2]!, 'utf8')) as Record<string, string>).map(([path, body]) => [
    path,
    Buffer.from(body),
  ]),
);
const server = createServer((request, response) => {
  const body = bodies.get(request.url ?? '');
  response.writeHead(body === undefined ? 404 : 200, { 'content-type': 'application/json; charset=utf-8' });
  response.end(body ?? '{"detail":"Not Found"}');
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
