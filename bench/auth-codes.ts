/**
 * Authorization codes for the token endpoint benchmark, made outside its clock by driving each server's
 * authorization endpoint over HTTP as a browser would: a cookie jar, redirects followed within the server, and
 * whatever page asks for something answered (Stratus's login form and consent page; the peer's interaction pages
 * answer themselves). The first code signs the user in and grants the scopes; the others reuse the session and
 * the remembered consent, as a returning user's browser does.
 */
import { createHash, randomBytes } from 'node:crypto';

export interface PreparedCode {
  code: string;
  verifier: string;
}

export interface CodeRequest {
  /** The server's base URL (its issuer). */
  base: string;
  /** The authorization endpoint's path. */
  path: string;
  clientId: string;
  redirectUri: string;
  scope: string;
  username: string;
  password: string;
}

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

/** The named inputs of a page's form with their values, unescaped. */
function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input[^>]*\bname="([^"]*)"[^>]*\bvalue="([^"]*)"/g))
    fields[name!] = value!.replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]!);
  return fields;
}

class Browser {
  readonly #cookies = new Map<string, string>();
  readonly #base: string;

  constructor(base: string) {
    this.#base = base;
  }

  async request(
    target: string,
    form?: Record<string, string>,
  ): Promise<{ status: number; location?: string; body: string }> {
    const response = await fetch(new URL(target, this.#base), {
      method: form ? 'POST' : 'GET',
      headers: {
        cookie: [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body: form && new URLSearchParams(form),
      redirect: 'manual',
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (/max-age=0|expires=Thu, 01 Jan 1970/i.test(line)) this.#cookies.delete(pair.slice(0, eq));
      else this.#cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return {
      status: response.status,
      location: response.headers.get('location') ?? undefined,
      body: await response.text(),
    };
  }
}

/** Follows one authorization request to the redirect back to the client, signing in and consenting on the way. */
async function authorize(browser: Browser, request: CodeRequest, verifier: string): Promise<string> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scope,
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  let response = await browser.request(`${request.path}?${query}`);
  for (let step = 0; step < 10; step++) {
    if (response.location) {
      const next = new URL(response.location, request.base);
      if (next.origin !== new URL(request.base).origin) {
        const code = next.searchParams.get('code');
        if (!code) throw new Error(`no code in the redirect: ${response.location}`);
        return code;
      }
      response = await browser.request(`${next.pathname}${next.search}`);
    } else if (response.status === 200 && response.body.includes('name="password"')) {
      const fields = formFields(response.body);
      response = await browser.request('/login', { ...fields, username: request.username, password: request.password });
    } else if (response.status === 200 && response.body.includes('name="decision"')) {
      response = await browser.request('/oauth2/consent', { ...formFields(response.body), decision: 'approve' });
    } else throw new Error(`the authorization flow stopped at ${response.status}: ${response.body.slice(0, 300)}`);
  }
  throw new Error('the authorization flow did not end');
}

/** `count` codes, each with its own PKCE verifier, `concurrency` requests at a time after the first. */
export async function prepareCodes(request: CodeRequest, count: number, concurrency = 4): Promise<PreparedCode[]> {
  const browser = new Browser(request.base);
  const one = async (): Promise<PreparedCode> => {
    const verifier = randomBytes(32).toString('base64url');
    return { code: await authorize(browser, request, verifier), verifier };
  };
  const codes = [await one()];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (codes.length < count) codes.push(await one());
    }),
  );
  return codes.slice(0, count);
}
