import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider, { type ClientMetadata, type Configuration } from 'oidc-provider';
import { onTestFinished } from 'vitest';
import { freePort } from '../../scripts/free-port.ts';
import { Browser, formFields, type Response } from './auth-app.ts';

/**
 * `oidc-provider` as the external identity provider of relying-party tests (DESIGN.md §5), in the test's process
 * on a loopback port: its own login and consent pages (`devInteractions`, which accept any password for a known
 * account), userinfo as JSON or as a signed JWT, RP-initiated logout. `rotate()` restarts it on the same port and
 * issuer with a new signing key, as a provider rotating its keys would look to Stratus.
 */
export interface OidcPeer {
  issuer: string;
  /** The accounts it knows, by `sub`, with their claims. */
  accounts: Map<string, Record<string, unknown>>;
  /** Starts it with its clients (known once Stratus listens: their redirect URIs name Stratus's port). */
  start(clients: ClientMetadata[], options?: { pkceClients?: string[] }): Promise<void>;
  /** The `kid` it signs with now. */
  kid(): string;
  rotate(): Promise<void>;
}

async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  return { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid };
}

/** The provider's port and issuer are fixed at once, so Stratus's configuration can name them before it starts. */
export async function createOidcPeer(): Promise<OidcPeer> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const accounts = new Map<string, Record<string, unknown>>();
  let generation = 0;
  let key = await signingKey(`key-${generation}`);
  let server: Server | undefined;
  let clients: ClientMetadata[] = [];
  let pkceClients: string[] = [];

  const listen = async () => {
    const configuration: Configuration = {
      clients,
      jwks: { keys: [key] },
      cookies: { keys: ['oidc peer cookie key, not a secret'] },
      pkce: { required: (_ctx, client) => pkceClients.includes(client.clientId) },
      scopes: ['openid', 'email', 'profile'],
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['preferred_username'] },
      findAccount: (_ctx, sub) =>
        accounts.has(sub) ? { accountId: sub, claims: () => ({ sub, ...accounts.get(sub) }) } : undefined,
      // Its SSRF guard refuses loopback addresses, where Stratus's key (the client's jwks_uri) is in a test.
      fetch: (url, init) => {
        const { dispatcher: _loopbackRefused, ...options } = (init ?? {}) as RequestInit & { dispatcher?: unknown };
        return globalThis.fetch(url, options);
      },
      features: {
        devInteractions: { enabled: true },
        jwtUserinfo: { enabled: true },
        rpInitiatedLogout: { enabled: true },
      },
    };
    const provider = new Provider(issuer, configuration);
    server = createServer(provider.callback());
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
  };
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  onTestFinished(stop);
  return {
    issuer,
    accounts,
    start: async (list, options = {}) => {
      clients = list;
      pkceClients = options.pkceClients ?? [];
      await listen();
    },
    kid: () => key.kid!,
    rotate: async () => {
      await stop();
      generation += 1;
      key = await signingKey(`key-${generation}`);
      await listen();
    },
  };
}

/**
 * Follows a sign-in from Stratus's login page button to the provider and back, as a browser: the provider's login
 * form (as `login`), its consent form, then Stratus's callback. Returns Stratus's last answer (the redirect to
 * the return path, or the login page with an error).
 */
export async function signInThroughPeer(
  browser: Browser,
  startPath: string,
  login: string,
): Promise<{ final: Response; callback?: string }> {
  const stratus = new URL(browser.base).origin;
  // The provider's cookies stay in a jar of their own, as a browser keeps them per host.
  const peer = new Browser(stratus);
  let response = await browser.get(startPath);
  let callback: string | undefined;
  for (let step = 0; step < 12; step++) {
    const location = response.location;
    if (response.status >= 300 && response.status < 400 && location) {
      const next = new URL(location, response.url);
      if (next.origin === stratus) {
        if (next.pathname.startsWith('/oauth2/code/')) callback = `${next.pathname}${next.search}`;
        if (!next.pathname.startsWith('/oauth2/code/') && !next.pathname.startsWith('/oauth2/authorization/'))
          return { final: response, callback };
        response = await browser.get(`${next.pathname}${next.search}`);
      } else response = await peer.get(next.href);
      continue;
    }
    if (response.status === 200 && response.body.includes('name="prompt" value="login"')) {
      response = await peer.post(formAction(response), { ...formFields(response.body), login, password: 'any' });
      continue;
    }
    if (response.status === 200 && response.body.includes('name="prompt" value="consent"')) {
      response = await peer.post(formAction(response), formFields(response.body));
      continue;
    }
    return { final: response, callback };
  }
  return { final: response, callback };
}

function formAction(response: Response): string {
  const action = /<form[^>]*action="([^"]*)"/.exec(response.body)?.[1] ?? '';
  return new URL(action.replace(/&amp;/g, '&'), response.url).href;
}
