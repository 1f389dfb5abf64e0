/**
 * The token endpoint's figures: Stratus's `/oauth2/token` against node-oidc-provider configured the same way
 * (bench/auth-peer.ts), twice: with its default in-memory adapter, and with its records in Redis as a production
 * deployment keeps them (bench/auth-peer-redis.ts over a redis-server that fsyncs its append-only file before it
 * acknowledges each write, bench/peers.ts), the like-for-like row, since Stratus's authorization records are
 * durable too; and what bearer validation adds to a small GET. Each server runs in a process of its own
 * and every load comes from yet another process (bench/auth-load.ts, autocannon's command), so the load's CPU is not the server's.
 *
 * Stratus is `stratus embedded` itself (the operator included, over its file store, with its default logging),
 * given the client, its secret and the user as manifests. Both sides sign RS256 with an RSA-2048 key, issue JWT
 * access tokens, require S256 PKCE, issue a refresh token with every code and rotate it on every refresh, and
 * authenticate the client with client_secret_basic. The codes are made before the clock starts, by driving each
 * authorization endpoint over HTTP (bench/auth-codes.ts); each run makes fresh ones.
 *
 * Run alone: `node bench/auth-token.ts`; `make bench` runs it as a section. Knobs: BENCH_AUTH_RUNS (5),
 * BENCH_AUTH_CODES (codes per side and run, 300), BENCH_AUTH_CONCURRENCY (8: connections, and refresh chains),
 * BENCH_AUTH_REFRESHES (refreshes per chain, 40), BENCH_AUTH_SECONDS (each autocannon load, 5),
 * BENCH_AUTH_BEARER_PAIRS (anonymous and bearer loads per run, 3), BENCH_AUTH_WARMUP (untimed rounds of both
 * grants on every side before the runs, 1), BENCH_AUTH_CPU_PROF (a directory: both servers write a CPU profile there).
 *
 * Each load lasts about a second, so a server still compiling its hot paths would be measured as much as the
 * server itself: every side first serves the same untimed round of both grants, and the runs measure warm servers.
 *
 * node-oidc-provider's in-memory adapter keeps its records in an LRU of 1,000 entries (and warns at startup that it
 * is for development only): a round makes several records per code, so with BENCH_AUTH_CODES much above 300 it
 * evicts codes and refresh tokens before they are used, and the load stops on its `invalid_grant`.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { hashPassword } from '../core/auth/password.ts';
import { API_VERSION } from '../core/resources/kind.ts';
import { freePort } from '../scripts/free-port.ts';
import { prepareCodes, type CodeRequest } from './auth-codes.ts';
import type { LoadJob, LoadResult } from './auth-load.ts';
import type { Headline } from './headline.ts';
import { startRedis, type RedisServer } from './peers.ts';
import { cpuSecondsOf } from './process-cpu.ts';
import { medianRange, times } from './summary.ts';

const run = promisify(execFile);
const REPOSITORY = resolve(import.meta.dirname, '..');
const CLIENT_ID = 'bench';
const USERNAME = 'bench';
const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

export interface AuthTokenOptions {
  runs: number;
  codes: number;
  concurrency: number;
  refreshesPerChain: number;
  bearerSeconds: number;
  /** Pairs of bearer and anonymous loads per run, in alternating order, each pair one sample of the added cost. */
  bearerPairs: number;
  /** Untimed rounds of both grants on every side before the first run. */
  warmup: number;
}

export function authTokenOptions(env: NodeJS.ProcessEnv): AuthTokenOptions {
  return {
    runs: Number(env.BENCH_AUTH_RUNS ?? 5),
    codes: Number(env.BENCH_AUTH_CODES ?? 300),
    concurrency: Number(env.BENCH_AUTH_CONCURRENCY ?? 8),
    refreshesPerChain: Number(env.BENCH_AUTH_REFRESHES ?? 40),
    bearerSeconds: Number(env.BENCH_AUTH_SECONDS ?? 5),
    bearerPairs: Number(env.BENCH_AUTH_BEARER_PAIRS ?? 3),
    warmup: Number(env.BENCH_AUTH_WARMUP ?? 1),
  };
}

/** One side's figures: its rate and latencies as the load generator saw them, and its server's CPU per operation. */
interface Side {
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  cpuMsPerOp: number;
}

/** Stratus, node-oidc-provider with its in-memory adapter, and node-oidc-provider over a durable Redis. */
type Sides = { stratus: Side; peer: Side; durable: Side };

export interface AuthTokenRun {
  code: Sides;
  refresh: Sides;
  bearer: { anonymous: Side; bearer: Side }[];
}

export interface AuthTokenFigures {
  options: AuthTokenOptions;
  runs: AuthTokenRun[];
}

interface Server {
  url: string;
  /** CPU seconds the server's process has used so far (user and system, every thread). */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

async function startProcess(args: string[], env: NodeJS.ProcessEnv, url: string, probe: string): Promise<Server> {
  // BENCH_AUTH_CPU_PROF=DIR: each server writes a CPU profile there when it stops.
  const profile = process.env.BENCH_AUTH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_AUTH_CPU_PROF]
    : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, ...args], {
    cwd: REPOSITORY,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; ; i++) {
    const up = await fetch(`${url}${probe}`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || i > 300) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ')} did not start:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `stratus embedded` with the authorization server on, over a fresh data directory holding the client and user. */
async function startStratus(work: string, secret: string, password: string): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const manifests = join(work, 'manifests');
  await mkdir(manifests, { recursive: true });
  const secretOf = (name: string, key: string, value: string) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'default' },
    stringData: { [key]: value },
  });
  const objects = [
    secretOf('bench-client-secret', 'secret', secret),
    {
      apiVersion: API_VERSION,
      kind: 'OAuth2Client',
      metadata: { name: CLIENT_ID, namespace: 'default' },
      spec: {
        clientId: CLIENT_ID,
        clientAuthenticationMethods: ['client_secret_basic'],
        clientSecretRef: { name: 'bench-client-secret', key: 'secret' },
        authorizationGrantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: [REDIRECT_URI],
        scopes: ['openid', 'profile'],
        clientSettings: { requireProofKey: true, requireAuthorizationConsent: true },
        tokenSettings: { 'settings.token.reuse-refresh-tokens': false },
      },
    },
    secretOf('bench-user-password', 'hash', await hashPassword(password)),
    {
      apiVersion: API_VERSION,
      kind: 'User',
      metadata: { name: USERNAME, namespace: 'default' },
      spec: {
        username: USERNAME,
        externalAuthOnly: false,
        disabled: false,
        groups: [],
        authorities: [],
        passwordSecretRef: { name: 'bench-user-password', key: 'hash' },
      },
    },
  ];
  await writeFile(join(manifests, 'bench.yaml'), objects.map((o) => stringify(o)).join('---\n'));
  const config = join(work, 'stratus.properties');
  await writeFile(config, `instance.name = Bench\noauth2.server.enabled = on\nserver.base.url = ${url}\n`);
  const args = ['cmd/stratus.ts', 'embedded', '--data-dir', join(work, 'data'), '--manifests', manifests];
  return startProcess(
    [...args, '--config', config, '--port', String(port)],
    { ...process.env, STRATUS_HOME: join(work, 'data') },
    url,
    '/health',
  );
}

async function startPeer(secret: string, redisUrl?: string): Promise<Server> {
  const port = await freePort();
  const env = {
    ...process.env,
    ...(redisUrl ? { BENCH_PEER_REDIS: redisUrl } : {}),
    PORT: String(port),
    BENCH_CLIENT_ID: CLIENT_ID,
    BENCH_CLIENT_SECRET: secret,
    BENCH_REDIRECT_URI: REDIRECT_URI,
    BENCH_USERNAME: USERNAME,
  };
  const url = `http://127.0.0.1:${port}`;
  return startProcess(['bench/auth-peer.ts'], env, url, '/.well-known/openid-configuration');
}

/** Runs one load in a process of its own. */
async function load(work: string, job: LoadJob): Promise<LoadResult> {
  const file = join(work, `job-${randomBytes(4).toString('hex')}.json`);
  await writeFile(file, JSON.stringify(job));
  const { stdout } = await run(process.execPath, [join(REPOSITORY, 'bench/auth-load.ts'), file], {
    maxBuffer: 256 * 1024 * 1024,
  });
  await rm(file);
  return JSON.parse(stdout) as LoadResult;
}

/** autocannon's command on one URL (16 connections), in a process of its own. */
async function autocannon(server: Server, path: string, seconds: number, headers: string[] = []): Promise<Side> {
  const bin = join(REPOSITORY, 'node_modules/autocannon/autocannon.js');
  const args = [bin, '-j', '-c', '16', '-d', String(seconds), ...headers.flatMap((h) => ['-H', h]), server.url + path];
  const cpu = await server.cpuSeconds();
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const used = (await server.cpuSeconds()) - cpu;
  const result = JSON.parse(stdout) as {
    non2xx: number;
    requests: { average: number; total: number };
    latency: Record<string, number>;
  };
  if (result.non2xx > 0) throw new Error(`${path}: ${result.non2xx} answers that were not 2xx`);
  return {
    perSecond: result.requests.average,
    p50Ms: result.latency.p50!,
    p95Ms: result.latency.p97_5!,
    cpuMsPerOp: (used * 1000) / result.requests.total,
  };
}

/** A load against `server`, with the CPU its process used meanwhile. */
async function measure(server: Server, work: string, job: LoadJob): Promise<{ result: LoadResult; side: Side }> {
  const cpu = await server.cpuSeconds();
  const result = await load(work, job);
  const used = (await server.cpuSeconds()) - cpu;
  const { perSecond, p50Ms, p95Ms, count } = result;
  return { result, side: { perSecond, p50Ms, p95Ms, cpuMsPerOp: (used * 1000) / count } };
}

export async function benchAuthToken(options: AuthTokenOptions): Promise<AuthTokenFigures> {
  const work = await mkdtemp(join(tmpdir(), 'stratus-bench-auth-'));
  const secret = randomBytes(24).toString('base64url');
  const password = randomBytes(12).toString('base64url');
  const servers: Server[] = [];
  let redis: RedisServer | undefined;
  try {
    const stratus = await startStratus(work, secret, password);
    servers.push(stratus);
    const peer = await startPeer(secret);
    servers.push(peer);
    redis = await startRedis(join(work, 'redis'));
    const durable = await startPeer(secret, redis.url);
    servers.push(durable);
    const authorization = `Basic ${Buffer.from(`${CLIENT_ID}:${secret}`).toString('base64')}`;
    const sides = {
      stratus: {
        server: stratus,
        url: stratus.url,
        authorize: '/oauth2/authorize',
        token: '/oauth2/token',
        scope: 'openid profile',
      },
      peer: { server: peer, url: peer.url, authorize: '/auth', token: '/token', scope: 'openid profile api' },
      durable: { server: durable, url: durable.url, authorize: '/auth', token: '/token', scope: 'openid profile api' },
    };
    const names = ['stratus', 'peer', 'durable'] as const;
    /** One side's round: fresh codes exchanged, then the refresh chains they start. */
    const round = async (name: (typeof names)[number]) => {
      const s = sides[name];
      const request: CodeRequest = {
        base: s.url,
        path: s.authorize,
        clientId: CLIENT_ID,
        redirectUri: REDIRECT_URI,
        scope: s.scope,
        username: USERNAME,
        password,
      };
      const codes = await prepareCodes(request, options.codes);
      const common = { base: s.url, path: s.token, authorization, concurrency: options.concurrency };
      const exchanged = await measure(s.server, work, { ...common, kind: 'code', redirectUri: REDIRECT_URI, codes });
      const refreshed = await measure(s.server, work, {
        ...common,
        kind: 'refresh',
        refreshTokens: exchanged.result.refreshTokens,
        perChain: options.refreshesPerChain,
      });
      return { code: exchanged.side, refresh: refreshed.side, accessToken: refreshed.result.accessToken };
    };
    for (let w = 0; w < options.warmup; w++) for (const name of names) await round(name);
    const runs: AuthTokenRun[] = [];
    for (let r = 0; r < options.runs; r++) {
      // Who goes first rotates, so that no side always meets a warmer or a colder machine.
      const order = names.map((_, i) => names[(i + r) % names.length]!);
      const code = {} as AuthTokenRun['code'];
      const refresh = {} as AuthTokenRun['refresh'];
      let accessToken = '';
      for (const name of order) {
        const measured = await round(name);
        code[name] = measured.code;
        refresh[name] = measured.refresh;
        if (name === 'stratus') accessToken = measured.accessToken;
      }
      const bearerHeader = [`authorization=Bearer ${accessToken}`];
      // Alternating which load goes first: the machine's drift over a run then falls on both sides alike.
      const bearer: AuthTokenRun['bearer'] = [];
      for (let pair = 0; pair < options.bearerPairs; pair++) {
        const loads = {} as AuthTokenRun['bearer'][number];
        const order = (r + pair) % 2 === 0 ? (['anonymous', 'bearer'] as const) : (['bearer', 'anonymous'] as const);
        for (const kind of order)
          loads[kind] = await autocannon(
            stratus,
            '/collections',
            options.bearerSeconds,
            kind === 'bearer' ? bearerHeader : [],
          );
        bearer.push(loads);
      }
      runs.push({ code, refresh, bearer });
    }
    return { options, runs };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await redis?.stop();
    await rm(work, { recursive: true, force: true });
  }
}

type Peer = 'peer' | 'durable';

const grants = [
  { name: 'code exchange', pick: (r: AuthTokenRun) => r.code },
  { name: 'refresh', pick: (r: AuthTokenRun) => r.refresh },
];

/** Throughput ratios are Stratus over a peer; CPU ratios the peer's CPU per operation over Stratus's (> 1: cheaper). */
const ratiosOf = (runs: AuthTokenRun[], pick: (r: AuthTokenRun) => Sides, peer: Peer) => ({
  rate: runs.map((r) => pick(r).stratus.perSecond / pick(r)[peer].perSecond),
  cpu: runs.map((r) => pick(r)[peer].cpuMsPerOp / pick(r).stratus.cpuMsPerOp),
});

const PEERS: Record<Peer, string> = {
  peer: 'node-oidc-provider 9 (same client, RS256 JWTs, PKCE, rotation), its in-memory adapter',
  durable:
    'node-oidc-provider 9 (same client, RS256 JWTs, PKCE, rotation) over Redis 7 (ioredis, the example adapter layout, AOF appendfsync always)',
};

/** The rows of the table of current figures: each grant's rate against each peer; the goal is to match both. */
export function authTokenHeadlines({ options, runs }: AuthTokenFigures): Headline[] {
  return grants.flatMap(({ name, pick }) =>
    (['peer', 'durable'] as const).map((peer) => ({
      figure: `token endpoint, ${name} rate, ${options.concurrency} connections`,
      peer: PEERS[peer],
      ratios: ratiosOf(runs, pick, peer).rate,
      goal: 1,
      command: 'node bench/auth-token.ts',
    })),
  );
}

/** The figures as Markdown tables: every run, then the median and range of each ratio. */
export function authTokenReport(figures: AuthTokenFigures): string[] {
  const { options, runs } = figures;
  const cell = (s: Side) =>
    `${Math.round(s.perSecond).toLocaleString('en-US')} (${s.p50Ms.toFixed(1)} / ${s.p95Ms.toFixed(1)}; ${s.cpuMsPerOp.toFixed(2)})`;
  const percent = (n: number) => `${(n * 100).toFixed(1)} %`;
  const ratios = (pick: (r: AuthTokenRun) => Sides, peer: Peer) => ratiosOf(runs, pick, peer);
  // What bearer validation adds to a request: the anonymous rate over the bearer rate less one, and the CPU likewise.
  const pairs = runs.flatMap((r, i) => r.bearer.map((loads, pair) => ({ label: `${i + 1}.${pair + 1}`, ...loads })));
  const added = {
    rate: pairs.map((p) => p.anonymous.perSecond / p.bearer.perSecond - 1),
    cpu: pairs.map((p) => p.bearer.cpuMsPerOp / p.anonymous.cpuMsPerOp - 1),
  };
  return [
    `Token endpoint, ${options.codes} code exchanges over ${options.concurrency} connections, then ${options.concurrency} refresh chains of ${options.refreshesPerChain} rotations, after ${options.warmup} untimed round(s) of the same on every side: ops/s (p50 / p95 ms; server CPU ms per op). Peers: node-oidc-provider with its in-memory adapter (memory), and with its records in Redis, append-only file fsynced on every write (durable).`,
    '| run | grant | Stratus | memory | durable | ratio to memory (CPU) | ratio to durable (CPU) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...runs.flatMap((r, i) =>
      grants.map(({ name, pick }) => {
        const memory = ratios(pick, 'peer');
        const durable = ratios(pick, 'durable');
        const sides = pick(r);
        return `| ${i + 1} | ${name} | ${cell(sides.stratus)} | ${cell(sides.peer)} | ${cell(sides.durable)} | ${times(memory.rate[i]!)} (${times(memory.cpu[i]!)}) | ${times(durable.rate[i]!)} (${times(durable.cpu[i]!)}) |`;
      }),
    ),
    ...grants.map(({ name, pick }) => {
      const memory = ratios(pick, 'peer');
      const durable = ratios(pick, 'durable');
      return `Median (range), ${name}: to memory ${medianRange(memory.rate, times)}, by CPU ${medianRange(memory.cpu, times)}; to durable ${medianRange(durable.rate, times)}, by CPU ${medianRange(durable.cpu, times)}`;
    }),
    // With no bearer pairs (BENCH_AUTH_BEARER_PAIRS=0, to profile the token endpoint alone) the section is left out.
    ...(pairs.length === 0
      ? []
      : [
          '',
          `Bearer validation, GET /collections on Stratus, ${options.bearerPairs} pairs of loads a run in alternating order, autocannon 16 connections ${options.bearerSeconds} s each: req/s (p50 / p97.5 ms; server CPU ms per request)`,
          '| run.pair | anonymous | bearer access token | added: by rate (by CPU) |',
          '| --- | --- | --- | --- |',
          ...pairs.map(
            (p, i) =>
              `| ${p.label} | ${cell(p.anonymous)} | ${cell(p.bearer)} | ${percent(added.rate[i]!)} (${percent(added.cpu[i]!)}) |`,
          ),
          `Median (range) of the added cost over ${pairs.length} pairs: by rate ${medianRange(added.rate, percent)}, by CPU ${medianRange(added.cpu, percent)}`,
        ]),
  ];
}

if (import.meta.main) {
  const figures = await benchAuthToken(authTokenOptions(process.env));
  console.log(authTokenReport(figures).join('\n'));
}
