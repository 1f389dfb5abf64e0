import { describe, expect, it } from 'vitest';
import { startAuthApp } from '../../../test/support/auth-app.ts';
import { OPEN_CORS_PATHS } from './cors.ts';

const EDITOR = 'https://editor.example.org';
const ELSEWHERE = 'https://app.example.net';

describe('CORS with server.cors.allowed_origins restricted', () => {
  async function restricted() {
    const { app } = await startAuthApp({ config: `server.cors.allowed_origins = ${EDITOR}` });
    return app;
  }

  it('lets only the configured origins read the API', async () => {
    const app = await restricted();
    const allowed = await app.inject({ url: '/jobs', headers: { origin: EDITOR } });
    expect(allowed.headers['access-control-allow-origin']).toBe(EDITOR);
    const other = await app.inject({ url: '/jobs', headers: { origin: ELSEWHERE } });
    expect(other.headers).not.toHaveProperty('access-control-allow-origin');
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/jobs',
      headers: { origin: ELSEWHERE, 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers).not.toHaveProperty('access-control-allow-origin');
  });

  it('lets every origin call the endpoints of browser-based OAuth clients, never with cookies', async () => {
    const app = await restricted();
    expect([...OPEN_CORS_PATHS].sort()).toEqual([
      '/.well-known/openid-configuration',
      '/oauth2/introspect',
      '/oauth2/jwks',
      '/oauth2/revoke',
      '/oauth2/token',
      '/oauth2/userinfo',
    ]);
    for (const url of ['/.well-known/openid-configuration', '/oauth2/jwks']) {
      const response = await app.inject({ url, headers: { origin: ELSEWHERE } });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['access-control-allow-origin'], url).toBe('*');
      expect(response.headers, url).not.toHaveProperty('access-control-allow-credentials');
    }
    // A refused exchange is still readable, so the client can show why.
    const token = await app.inject({
      method: 'POST',
      url: '/oauth2/token',
      headers: { origin: ELSEWHERE, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=authorization_code&client_id=nobody&code=x&code_verifier=y&redirect_uri=https%3A%2F%2Fx',
    });
    expect(token.statusCode).toBe(401);
    expect(token.headers['access-control-allow-origin']).toBe('*');
    // userinfo with a bearer token needs a preflight for its Authorization header.
    for (const url of ['/oauth2/userinfo', '/oauth2/revoke', '/oauth2/introspect', '/oauth2/token']) {
      const preflight = await app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: ELSEWHERE,
          'access-control-request-method': url === '/oauth2/userinfo' ? 'GET' : 'POST',
          'access-control-request-headers': 'authorization',
        },
      });
      expect(preflight.statusCode, url).toBe(204);
      expect(preflight.headers['access-control-allow-origin'], url).toBe('*');
      expect(preflight.headers['access-control-allow-headers'], url).toBe('authorization');
      expect(preflight.headers, url).not.toHaveProperty('access-control-allow-credentials');
    }
    // The authorization endpoint and the pages are navigations: they keep the configured origins.
    for (const url of ['/oauth2/authorize', '/login', '/connect/register']) {
      const response = await app.inject({ url, headers: { origin: ELSEWHERE } });
      expect(response.headers, url).not.toHaveProperty('access-control-allow-origin');
    }
  });
});
