import type { JWTVerifyGetKey } from 'jose';
import type { KubeObject } from '../../../cluster/objects.ts';
import type { Cluster } from '../../../cluster/port.ts';
import type { User } from '../../../resources/user/schema.ts';
import type { SigningKeys } from '../../keys/signing-keys.ts';
import type { UserDirectory } from '../../users/directory.ts';
import { mapIdentity, recordSignIn } from '../mapping.ts';
import type { ExternalProvider } from '../providers.ts';
import { exchangeCode, FederatedLoginError, fetchUserInfo, verifyIdToken } from './exchange.ts';
import type { LoginState } from './state.ts';

/**
 * Why a sign-in through a provider ended without a session; the login page shows one message per kind (the log
 * line says more). `account` covers an identity that names no local account, or one that may not sign in
 * (disabled, expired, not flagged for external sign-in): the page does not tell which, so it does not tell a
 * stranger which identities have accounts.
 */
export type LoginFailure = 'state' | 'denied' | 'provider' | 'token' | 'account';

export interface SignInDependencies {
  provider: ExternalProvider;
  redirectUri: string;
  /** With `private_key_jwt`: the key of the provider's keystore. */
  clientKeys: SigningKeys | undefined;
  /** The provider's signing keys (its `jwk_uri`). */
  providerKeys: JWTVerifyGetKey;
  users: Pick<UserDirectory, 'withOpenId'>;
  cluster: Cluster;
  linkedAccounts: boolean;
}

export type SignInOutcome =
  | { user: User & KubeObject; idToken: string; failure?: undefined }
  | { user?: undefined; failure: LoginFailure; detail: string };

/**
 * The callback's work once its state is accepted: the code exchanged at the provider, the ID token and userinfo
 * checked, the identity mapped to a local account by the provider's mapping claim (userinfo's claims over the ID
 * token's), and the sign-in recorded, which makes this account the one its linked accounts sign in as next.
 */
export async function signInThroughProvider(
  deps: SignInDependencies,
  input: { code: string; state: LoginState; now: Date },
): Promise<SignInOutcome> {
  const { provider } = deps;
  const { now } = input;
  let claims: Record<string, unknown>;
  let idToken: string;
  try {
    const tokens = await exchangeCode(
      provider,
      deps.clientKeys,
      { code: input.code, redirectUri: deps.redirectUri, codeVerifier: input.state.codeVerifier },
      now,
    );
    idToken = tokens.idToken;
    const idClaims = await verifyIdToken(provider, deps.providerKeys, idToken, input.state.nonce, now);
    const userInfo = await fetchUserInfo(provider, deps.providerKeys, tokens.accessToken, idClaims.sub!, now);
    claims = { ...idClaims, ...userInfo };
  } catch (err) {
    if (err instanceof FederatedLoginError) return { failure: err.reason, detail: err.message };
    throw err;
  }
  const mapping = await mapIdentity(deps.users, provider.mappingClaim, claims, {
    linkedAccounts: deps.linkedAccounts,
    now,
  });
  if (!mapping.user) return { failure: 'account', detail: mapping.refusal };
  await recordSignIn(deps.cluster, mapping.user, now);
  return { user: mapping.user, idToken };
}
