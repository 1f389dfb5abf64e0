import { describe, expect, it } from 'vitest';
import { ClientAuthenticationError } from '../../../core/auth/clients/authenticate.ts';
import { OAuthError } from '../../../core/auth/errors.ts';
import { ProcessingError } from '../../../core/processing/errors.ts';
import { HttpError } from '../../errors.ts';
import { build } from '../../test/build.ts';

describe('the error handler', () => {
  it("answers the processing engine's errors in openEO's envelope on any route", async () => {
    const { app } = await build();
    app.get('/engine-refusal', async () => {
      throw new ProcessingError('DimensionNotAvailable', 'No dimension t.', { node: 'reduce' });
    });
    const res = await app.inject({ url: '/engine-refusal' });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toBe(
      JSON.stringify({
        id: 'DimensionNotAvailable',
        code: 'DimensionNotAvailable',
        message: "No dimension t. (node 'reduce')",
        links: [],
      }),
    );
  });

  it("answers OAuth 2.0's errors in RFC 6749's envelope, client authentication with its Basic challenge", async () => {
    const { app } = await build();
    app.get('/grant-refusal', async () => {
      throw new OAuthError('invalid_grant', 'the code was already used');
    });
    app.get('/client-refusal', async () => {
      throw new ClientAuthenticationError('unknown client', true);
    });
    const grant = await app.inject({ url: '/grant-refusal' });
    expect(grant.statusCode).toBe(400);
    expect(grant.json()).toEqual({ error: 'invalid_grant', error_description: 'the code was already used' });
    const client = await app.inject({ url: '/client-refusal' });
    expect(client.statusCode).toBe(401);
    expect(client.headers['www-authenticate']).toBe('Basic realm="oauth2"');
    expect(client.json()).toEqual({ error: 'invalid_client', error_description: 'unknown client' });
  });

  it("says a refusal of credentials in openEO's code on an openEO route, in its own code elsewhere", async () => {
    const { app } = await build();
    const refuse = async () => {
      throw new HttpError('Unauthorized', 'Sign in first.', [], { headers: { 'www-authenticate': 'Basic' } });
    };
    app.get('/openeo-family', { config: { openeo: true } }, refuse);
    app.get('/native-family', refuse);
    const openEo = await app.inject({ url: '/openeo-family' });
    expect(openEo.statusCode).toBe(401);
    expect(openEo.headers['www-authenticate']).toBe('Basic');
    expect(openEo.json()).toEqual({
      id: 'AuthenticationRequired',
      code: 'AuthenticationRequired',
      message: 'Sign in first.',
      links: [],
    });
    const native = await app.inject({ url: '/native-family' });
    expect(native.statusCode).toBe(401);
    expect(native.json()).toEqual({ detail: 'Sign in first.' });
  });
});
