import type { Cluster } from '../../../cluster/port.ts';
import { KeystoreError } from '../../keys/keystore.ts';
import type { SigningKeys } from '../../keys/signing-keys.ts';
import type { UserDirectory } from '../../users/directory.ts';
import type { ProviderKeySets } from '../provider-keys.ts';
import type { ExternalProvider, ProviderLog, ProviderRegistry } from '../providers.ts';
import { loadClientKeys } from './client-keys.ts';
import type { SignInDependencies } from './sign-in.ts';

/**
 * The instance as a relying party of its external providers: the providers offered on the login page
 * (`oidc.oauth2.login.enabled = on`: every external provider of the registry; the internal one never), and what
 * a sign-in through one needs. The keystores of `private_key_jwt` providers are read once here, at startup; a
 * provider whose keystore cannot give its key is left out with a log line, as providers.ts leaves out a provider
 * with a wrong key.
 */
export class RelyingParty {
  readonly #providers: Map<string, ExternalProvider>;
  readonly #clientKeys: Map<string, SigningKeys>;
  readonly #keySets: ProviderKeySets;
  readonly #users: Pick<UserDirectory, 'withOpenId'>;
  readonly #cluster: Cluster;
  readonly #linkedAccounts: boolean;

  private constructor(
    providers: ExternalProvider[],
    clientKeys: Map<string, SigningKeys>,
    options: RelyingPartyOptions,
  ) {
    this.#providers = new Map(providers.map((p) => [p.key, p]));
    this.#clientKeys = clientKeys;
    this.#keySets = options.keySets;
    this.#users = options.users;
    this.#cluster = options.cluster;
    this.#linkedAccounts = options.linkedAccounts;
  }

  static async create(registry: ProviderRegistry, options: RelyingPartyOptions): Promise<RelyingParty> {
    const providers: ExternalProvider[] = [];
    const clientKeys = new Map<string, SigningKeys>();
    for (const provider of options.loginEnabled ? registry.external : []) {
      if (!provider.redirectUrl) continue;
      if (provider.clientAssertionKeystore) {
        try {
          clientKeys.set(provider.key, await loadClientKeys(provider.key, provider.clientAssertionKeystore));
        } catch (err) {
          if (!(err instanceof KeystoreError)) throw err;
          options.log.error({ provider: provider.key }, `identity provider ${provider.key} rejected: ${err.message}`);
          continue;
        }
      }
      providers.push(provider);
    }
    return new RelyingParty(providers, clientKeys, options);
  }

  /** The providers of the login page's buttons, in the registry's order. */
  providers(): ExternalProvider[] {
    return [...this.#providers.values()];
  }

  provider(key: string): ExternalProvider | undefined {
    return this.#providers.get(key);
  }

  /** The public key of the client assertions sent to the provider with this client id. */
  assertionKeys(clientId: string): SigningKeys | undefined {
    const provider = this.providers().find((p) => p.clientId === clientId && this.#clientKeys.has(p.key));
    return provider && this.#clientKeys.get(provider.key);
  }

  dependencies(provider: ExternalProvider): SignInDependencies {
    return {
      provider,
      redirectUri: provider.redirectUrl!,
      clientKeys: this.#clientKeys.get(provider.key),
      providerKeys: this.#keySets.of(provider).resolve,
      users: this.#users,
      cluster: this.#cluster,
      linkedAccounts: this.#linkedAccounts,
    };
  }
}

export interface RelyingPartyOptions {
  loginEnabled: boolean;
  linkedAccounts: boolean;
  keySets: ProviderKeySets;
  users: Pick<UserDirectory, 'withOpenId'>;
  cluster: Cluster;
  log: ProviderLog;
}
