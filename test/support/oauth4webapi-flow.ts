import * as oauth from 'oauth4webapi';
import { authorize, Browser, type AuthApp } from './auth-app.ts';

/** The redirect URI of the test clients: nothing listens on it, the flows read the redirect's location. */
export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';
/** Plain http on loopback needs oauth4webapi's `allowInsecureRequests`, which changes nothing of what it checks. */
export const insecure = { [oauth.allowInsecureRequests]: true };

/**
 * oauth4webapi's discovery and authorization request of a client, without state; with an S256 challenge of the
 * verifier when there is one. The callback's parameters are validated for the token request.
 */
export async function authorizeWithOauth4webapi(app: AuthApp, clientId: string, verifier?: string) {
  const issuer = new URL(app.url);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid username',
    ...(verifier && {
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }),
  }).toString();
  const callback = await authorize(new Browser(app.url), url.href, { username: 'ada', password: 'correct horse' });
  const params = oauth.validateAuthResponse(
    as,
    { client_id: clientId },
    new URL(callback.location!),
    oauth.expectNoState,
  );
  return { as, params };
}
