/** The fixed paths of spec 2's endpoints; absolute URLs are the issuer (`server.base.url`) followed by them. */
export const ENDPOINT_PATHS = {
  authorization: '/oauth2/authorize',
  token: '/oauth2/token',
  jwks: '/oauth2/jwks',
  revocation: '/oauth2/revoke',
  introspection: '/oauth2/introspect',
  userinfo: '/oauth2/userinfo',
  discovery: '/.well-known/openid-configuration',
  registration: '/connect/register',
} as const;

export type EndpointName = keyof typeof ENDPOINT_PATHS;

export function endpointUrl(issuer: string, endpoint: EndpointName): string {
  return `${issuer}${ENDPOINT_PATHS[endpoint]}`;
}
