import type { KeyObject } from 'node:crypto';
import type { Cluster } from '../cluster/port.ts';
import type { ClientDirectory } from './clients/directory.ts';
import type { SigningKeys } from './keys/signing-keys.ts';
import type { AuthorizationStore } from './store/authorizations.ts';
import type { UserDirectory } from './users/directory.ts';

/** What every part of the authorization server works with: the store, the issuer and its keys, the directories. */
export interface AuthContext {
  cluster: Cluster;
  namespace: string;
  /** `server.base.url` without a trailing slash: `iss` of every token. */
  issuer: string;
  keys: SigningKeys;
  /** The installation's MAC key of refresh tokens (keys/token-key.ts). */
  refreshTokenKey: KeyObject;
  clients: ClientDirectory;
  users: UserDirectory;
  authorizations: AuthorizationStore;
  /**
   * The claim of this server's access tokens that names the local user (`oidc.provider.platform.mapping_claim`), as
   * configured: anything but `username` or `email` refuses every token (spec 2, 'Invalid mapping claim').
   */
  mappingClaim: string;
  now(): Date;
  /**
   * What the clients, authorizations and users read as now: equal stamps, equal reads. Undefined while a read would
   * wait for this process's own writes, or when nothing can tell (then nothing is remembered between requests).
   */
  directoriesStamp?(): string | undefined;
}
