/**
 * The token endpoint benchmark's load generator, a process apart from both servers (`node bench/auth-load.ts
 * JOB.json`): it posts token requests with `concurrency` connections and prints, as JSON, the rate, the
 * latencies and the tokens it got. Every answer must be 200; one that is not stops the run.
 *
 * - `code`: one `authorization_code` grant per prepared code, `concurrency` at a time;
 * - `refresh`: `concurrency` chains in parallel, each refreshing its own refresh token `perChain` times in a row
 *   and presenting the rotated token it got back the next time.
 */
import { readFile } from 'node:fs/promises';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { PreparedCode } from './auth-codes.ts';

export type LoadJob = {
  base: string;
  path: string;
  /** The client's `Authorization: Basic` header value. */
  authorization: string;
  concurrency: number;
} & (
  | { kind: 'code'; redirectUri: string; codes: PreparedCode[] }
  | { kind: 'refresh'; refreshTokens: string[]; perChain: number }
);

export interface LoadResult {
  count: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  /** The refresh tokens last issued (one per code, or per chain). */
  refreshTokens: string[];
  accessToken: string;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const pool = new Pool(job.base, { connections: job.concurrency, pipelining: 1 });
  const latencies: number[] = [];
  const refreshTokens: string[] = [];
  let accessToken = '';
  const post = async (form: Record<string, string>): Promise<{ access_token: string; refresh_token?: string }> => {
    const started = performance.now();
    const response = await pool.request({
      method: 'POST',
      path: job.path,
      headers: { authorization: job.authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    const text = await response.body.text();
    latencies.push(performance.now() - started);
    if (response.statusCode !== 200) throw new Error(`${form.grant_type}: ${response.statusCode} ${text}`);
    return JSON.parse(text) as { access_token: string; refresh_token?: string };
  };

  const started = performance.now();
  if (job.kind === 'code') {
    let next = 0;
    await Promise.all(
      Array.from({ length: job.concurrency }, async () => {
        for (let i = next++; i < job.codes.length; i = next++) {
          const { code, verifier } = job.codes[i]!;
          const tokens = await post({
            grant_type: 'authorization_code',
            code,
            redirect_uri: job.redirectUri,
            code_verifier: verifier,
          });
          refreshTokens[i] = tokens.refresh_token!;
          accessToken = tokens.access_token;
        }
      }),
    );
  } else {
    await Promise.all(
      job.refreshTokens.slice(0, job.concurrency).map(async (first, chain) => {
        let token = first;
        for (let i = 0; i < job.perChain; i++) {
          const tokens = await post({ grant_type: 'refresh_token', refresh_token: token });
          if (!tokens.refresh_token || tokens.refresh_token === token)
            throw new Error('the refresh token was not rotated');
          token = tokens.refresh_token;
          accessToken = tokens.access_token;
        }
        refreshTokens[chain] = token;
      }),
    );
  }
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  latencies.sort((a, b) => a - b);
  return {
    count: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p95Ms: percentile(latencies, 0.95),
    refreshTokens,
    accessToken,
  };
}

if (import.meta.main) {
  const job = JSON.parse(await readFile(process.argv[2]!, 'utf8')) as LoadJob;
  process.stdout.write(JSON.stringify(await runLoad(job)));
}
