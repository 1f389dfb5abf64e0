/**
 * The API benchmark's peer, a process of its own (`node bench/json-peer.ts ANSWERS.json`): a bare `node:http` server
 * answering each path with the headers and bytes the file maps it to (`PeerAnswer` of `bench/api.ts`). It prints its
 * URL, then serves until killed; started with an IPC channel, it answers any message with its `process.cpuUsage()`.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PeerAnswer } from './api.ts';

const answers = new Map(
  Object.entries(JSON.parse(await readFile(process.argv[2]!, 'utf8')) as Record<string, PeerAnswer>).map(
    ([path, { headers, body }]) => [path, { headers, body: Buffer.from(body) }],
  ),
);
const server = createServer((request, response) => {
  const answer = answers.get(request.url ?? '');
  if (answer === undefined) {
    response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
    return void response.end('{"detail":"Not Found"}');
  }
  response.writeHead(200, answer.headers);
  response.end(answer.body);
});
server.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
// The bench asks for the CPU time the peer has used (its process's user + system), to compare per request.
process.on('message', () => process.send!(process.cpuUsage()));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
