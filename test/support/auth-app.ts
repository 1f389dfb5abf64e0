import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { onTestFinished } from 'vitest';
import { openEmbeddedCluster, type EmbeddedCluster } from '../../core/cluster/embedded/index.ts';
import { parseInstanceConfig } from '../../core/config/index.ts';
import type { OAuth2Client } from '../../core/resources/oauth2-client/schema.ts';
import type { User } from '../../core/resources/user/schema.ts';
import { freePort } from '../../scripts/free-port.ts';
import { addClient, addUser } from './auth-context.ts';
import { buildApp } from '../../api-server/app.ts';
import { startApiServer } from '../../api-server/server.ts';

/**
 * The API server with the authorization server on, listening on a real loopback port whose URL is its issuer
 * (`server.base.url`), over a fresh embedded store (or a given one, for two instances over one store).
 */
export interface AuthApp {
  url: string;
  cluster: EmbeddedCluster;
  app: Awaited<ReturnType<typeof buildApp>>;
  logLines(): Record<string, unknown>[];
  addUser(username: string, password: string | undefined, spec?: Partial<User['spec']>): Promise<void>;
  addClient(spec: Partial<OAuth2Client['spec']> & { clientId: string }, secret?: string): Promise<void>;
}

export async function openTestCluster(): Promise<EmbeddedCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'stratus-auth-app-'));
  const cluster = await openEmbeddedCluster({ dataDir: dir });
  onTestFinished(async () => {
    await cluster.close();
    await rm(dir, { recursive: true, force: true });
  });
  return cluster;
}

export async function startAuthApp(
  options: {
    /** More configuration lines; a function of the instance's URL when they must name it. */
    config?: string | ((url: string) => string);
    cluster?: EmbeddedCluster;
    /** The issuer when it is not this instance's own URL (replicas behind one public URL). */
    baseUrl?: string;
    /** false: without the authorization server (external providers' bearer tokens only). */
    authorizationServer?: boolean;
  } = {},
): Promise<AuthApp> {
  const cluster = options.cluster ?? (await openTestCluster());
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const baseUrl = options.baseUrl ?? url;
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({
    cluster,
    config: parseInstanceConfig(
      [
        `instance.name = Auth test`,
        `oauth2.server.enabled = ${options.authorizationServer === false ? 'off' : 'on'}`,
        `server.base.url = ${baseUrl}`,
        typeof options.config === 'function' ? options.config(url) : (options.config ?? ''),
      ].join('\n'),
      'test',
    ),
    registry: new Registry(),
    logger: pino({ level: 'info' }, sink),
    healthCacheMs: 0,
    storageRoot: join(tmpdir(), 'stratus-auth-app-store'),
    zarrFastPath: false,
  });
  const server = await startApiServer(app, '127.0.0.1', port);
  onTestFinished(() => server.stop(2_000));
  return {
    url,
    cluster,
    app,
    logLines: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    addUser: (username, password, spec) => addUser(cluster, username, password, spec),
    addClient: (spec, secret) => addClient(cluster, spec, secret),
  };
}

/** POSTs a form as a client would (a public client `cli` unless the form names another) and parses the JSON answer. */
export async function postForm(
  base: string,
  path: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: 'cli', ...form }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, string> };
}

export interface Response {
  status: number;
  headers: Headers;
  body: string;
  location?: string;
  /** The URL asked for, against which a relative Location or form action resolves. */
  url: string;
}

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };
const unescape = (text: string) => text.replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]!);

/** The hidden and named inputs of the (first) form of a page, unescaped. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input[^>]*\bname="([^"]*)"[^>]*\bvalue="([^"]*)"/g))
    fields[unescape(match[1]!)] = unescape(match[2]!);
  return fields;
}

/**
 * A browser as far as sign-in needs one: a cookie jar, manual redirects, forms posted as
 * application/x-www-form-urlencoded. It keeps what the server sets, as a browser would, HttpOnly or not.
 */
export class Browser {
  readonly base: string;
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie line received, for checks of their attributes. */
  readonly setCookies: string[] = [];

  constructor(base: string) {
    this.base = base;
  }

  async request(
    method: string,
    target: string,
    options: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Response> {
    const headers: Record<string, string> = { ...options.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (options.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const response = await fetch(new URL(target, this.base), {
      method,
      headers,
      body: options.form ? new URLSearchParams(options.form).toString() : undefined,
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return {
      status: response.status,
      headers: response.headers,
      body: await response.text(),
      location: response.headers.get('location') ?? undefined,
      url: response.url,
    };
  }

  get(target: string, headers?: Record<string, string>) {
    return this.request('GET', target, { headers });
  }

  post(target: string, form: Record<string, string>) {
    return this.request('POST', target, { form });
  }
}

/** Signs in through the login page: its form, its CSRF token, the password. */
export async function signIn(browser: Browser, username: string, password: string, returnTo = '/'): Promise<Response> {
  const page = await browser.get(`/login?return_to=${encodeURIComponent(returnTo)}`);
  return browser.post('/login', { ...formFields(page.body), username, password });
}

/**
 * Drives the authorization endpoint as a user would: signs in when sent to the login page, answers the consent
 * page, and returns the final redirect to the client (its Location) or the last response when there is none.
 */
export async function authorize(
  browser: Browser,
  authorizationUrl: string,
  user: { username: string; password: string; consent?: 'approve' | 'deny' },
): Promise<Response> {
  let response = await browser.get(authorizationUrl);
  for (let step = 0; step < 6; step++) {
    if (response.status >= 300 && response.status < 400 && response.location) {
      const next = new URL(response.location, browser.base);
      if (next.origin !== new URL(browser.base).origin) return response;
      response = await browser.get(`${next.pathname}${next.search}`);
      continue;
    }
    if (response.status === 200 && response.body.includes('name="decision"')) {
      response = await browser.post('/oauth2/consent', {
        ...formFields(response.body),
        decision: user.consent ?? 'approve',
      });
      continue;
    }
    if (response.status === 200 && response.body.includes('name="password"')) {
      response = await browser.post('/login', {
        ...formFields(response.body),
        username: user.username,
        password: user.password,
      });
      continue;
    }
    return response;
  }
  return response;
}
