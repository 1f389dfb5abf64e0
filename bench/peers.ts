/**
 * The benchmark peers that run as separate programs: nginx serving a directory, redis-server keeping records, wrk
 * loading a URL.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../scripts/free-port.ts';

const run = promisify(execFile);

export interface Nginx {
  url: string;
  /** The master process, whose children are the workers. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * nginx (Debian's, from scripts/install-bench-tools.sh) serving `dir` at `prefix`, tuned as a static file server,
 * with `workers` worker processes (one per core by default).
 */
export async function startNginx(
  work: string,
  prefix: string,
  dir: string,
  workers: number | 'auto' = 'auto',
): Promise<Nginx> {
  const port = await freePort();
  await mkdir(join(work, 'logs'), { recursive: true });
  const conf = join(work, 'nginx.conf');
  await writeFile(
    conf,
    `${process.getuid?.() === 0 ? 'user root;' : ''}
worker_processes ${workers};
pid ${join(work, 'nginx.pid')};
error_log ${join(work, 'logs/error.log')} warn;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  open_file_cache max=10000 inactive=60s;
  default_type application/octet-stream;
  client_body_temp_path ${work}/body; proxy_temp_path ${work}/proxy; fastcgi_temp_path ${work}/fastcgi;
  uwsgi_temp_path ${work}/uwsgi; scgi_temp_path ${work}/scgi;
  server {
    listen 127.0.0.1:${port};
    location ${prefix} { alias ${dir}/; etag on; }
  }
}
`,
  );
  const child: ChildProcess = spawn('nginx', ['-p', work, '-c', conf, '-g', 'daemon off;'], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGQUIT');
      await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}

export interface RedisServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * redis-server (Debian's, from scripts/install-bench-tools.sh) on a loopback port, with its config file and data
 * directory under `work`, configured for durability as a production deployment that must not lose a token would
 * be: the append-only file on and fsynced before every write is acknowledged (`appendfsync always`). RDB snapshots
 * are off: the append-only file is the durable record, and a snapshot's fork would only slow the peer down.
 */
export async function startRedis(work: string): Promise<RedisServer> {
  const port = await freePort();
  await mkdir(join(work, 'data'), { recursive: true });
  const conf = join(work, 'redis.conf');
  await writeFile(
    conf,
    `bind 127.0.0.1
port ${port}
protected-mode yes
daemonize no
dir ${join(work, 'data')}
logfile ${join(work, 'redis.log')}
save ""
appendonly yes
appendfsync always
`,
  );
  const child: ChildProcess = spawn('redis-server', [conf], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; ; i++) {
    const { stdout } = await run('redis-cli', ['-p', String(port), 'ping']).catch(() => ({ stdout: '' }));
    if (stdout.trim() === 'PONG') break;
    if (child.exitCode !== null || i > 100) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start: see ${join(work, 'redis.log')}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Requests per second that wrk reaches on `paths` (taken in turn), with 2 threads and `connections`. */
export async function wrk(base: string, paths: string[], seconds: number, connections = 32): Promise<number> {
  const script = join(process.env.TMPDIR ?? '/tmp', `stratus-wrk-${process.pid}.lua`);
  await writeFile(
    script,
    `local paths = {${paths.map((p) => JSON.stringify(p)).join(',')}}
local i = 0
request = function()
  i = i % #paths + 1
  return wrk.format(nil, paths[i])
end
`,
  );
  const { stdout } = await run('wrk', ['-t2', `-c${connections}`, `-d${seconds}s`, '-s', script, base], {
    maxBuffer: 1 << 20,
  });
  const match = /Requests\/sec:\s+([\d.]+)/.exec(stdout);
  if (!match) throw new Error(`wrk printed no rate:\n${stdout}`);
  if (/Non-2xx or 3xx responses/.test(stdout)) throw new Error(`wrk saw error responses:\n${stdout}`);
  return Number(match[1]);
}
