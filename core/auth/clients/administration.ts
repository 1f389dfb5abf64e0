import { createHash, randomInt } from 'node:crypto';
import { z } from 'zod';
import { isApiError } from '../../cluster/errors.ts';
import type { KubeObject } from '../../cluster/objects.ts';
import type { Cluster } from '../../cluster/port.ts';
import { API_VERSION } from '../../resources/kind.ts';
import { oauth2ClientKind, type OAuth2Client } from '../../resources/oauth2-client/schema.ts';
import { secretKind } from '../../resources/secret.ts';
import { readSystemSettings } from '../system-settings.ts';
import { REGISTRAR_CLIENT_ID } from './registrar.ts';
import { clientRuleFailures, registrationOf, type ClientDraft, type ClientRuleFailure } from './rules.ts';

/**
 * The client administration of spec 2 (`/api/oAuth2Clients`) over OAuth2Client resources. A client is addressed by
 * a DHIS2-style uid kept in the label `climate.stratus.dev/uid` (labels keep case), because the resource's name is
 * fixed while a PUT may rename the client id; a client applied by hand without the label has its resource name as
 * uid. Every write is compare-and-swap on the resourceVersion of the client it judged, and judges the client
 * against the current store each time (the rules, the uniqueness of the id), so concurrent writers lose no update.
 * The secret lives in a Secret owned by the client; it is written, never read back out.
 */
export const UID_LABEL = 'climate.stratus.dev/uid';
/** When the API last wrote the client; a client never written through the API counts from its creation. */
export const LAST_UPDATED_ANNOTATION = 'climate.stratus.dev/last-updated';
export const SECRET_KEY = 'clientSecret';
const FIELD_MANAGER = 'stratus-api-server';
const MAX_ATTEMPTS = 5;
/** A resource name that is the client id must leave room for the Secret's `-secret` within a DNS label. */
const NAME_LIKE_ID = /^[a-z0-9]([-a-z0-9]{0,54}[a-z0-9])?$/;

export type StoredClient = OAuth2Client & KubeObject;

/** A client as a write gives it: judged by the rules (with `hasSecret` from the write or the stored client). */
export interface ClientInput {
  draft: Omit<ClientDraft, 'hasSecret' | 'name'>;
  /** Absent: a new client is named like its id; a replaced one keeps its name. */
  name?: string;
  requireAuthorizationConsent: boolean;
  /** A new secret; absent: the stored one stays. */
  secret?: string;
}

/** How a write judges and stores its client; the admin API uses none of these. */
export interface WriteOptions {
  /**
   * Judge the client as a stored one (spec 2: persisted clients keep their stored settings): the metadata import
   * brings clients as they were stored, so the PKCE rule of writes does not bind it (`RuleContext.stored`).
   */
  asStored?: boolean;
  /** Others that claim the same client id outside the store (the other objects of one import). */
  alsoClaimedBy?: readonly string[];
  /** The uid of a new client (an imported one keeps its uid); a new one otherwise. */
  uid?: string;
}

export type Judgement =
  { ok: true } | { ok: false; why: 'reserved' } | { ok: false; why: 'invalid'; failures: ClientRuleFailure[] };

export type WriteResult =
  | { ok: true; client: StoredClient }
  | { ok: false; why: 'not-found' }
  /** A creation with a uid that another client has. */
  | { ok: false; why: 'uid-taken' }
  | { ok: false; why: 'reserved' }
  | { ok: false; why: 'invalid'; failures: ClientRuleFailure[] }
  | { ok: false; why: 'contended' };

const ALPHANUMERIC = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A DHIS2 uid: a letter, then ten letters or digits. */
export function newUid(): string {
  let uid = ALPHANUMERIC[randomInt(52)]!;
  for (let i = 0; i < 10; i++) uid += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)]!;
  return uid;
}

/**
 * What may be a client's uid: a DHIS2 uid, or the resource name that a client applied by hand without the label
 * has as uid; either fits the label. An import keeps the uid of the client it brings back.
 */
export const clientUid = z.string().regex(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/, {
  message: 'must be a DHIS2 uid or the resource name of a client: at most 63 letters, digits, "-", "_" and "."',
});

export function uidOf(client: StoredClient): string {
  return client.metadata.labels?.[UID_LABEL] ?? client.metadata.name;
}

/** The internal registrar, or a client that claims its id: hidden from the administration and never changed by it. */
export function isReserved(client: StoredClient): boolean {
  return client.metadata.name === REGISTRAR_CLIENT_ID || client.spec.clientId === REGISTRAR_CLIENT_ID;
}

const secretRefOf = (name: string) => ({ name: `${name}-secret`, key: SECRET_KEY });

export class ClientAdministration {
  readonly #cluster: Cluster;
  readonly #namespace: string;

  constructor(cluster: Cluster, namespace: string) {
    this.#cluster = cluster;
    this.#namespace = namespace;
  }

  /** Every client, but those being deleted. */
  async all(): Promise<StoredClient[]> {
    const { items } = await this.#cluster.list<StoredClient>(oauth2ClientKind, { namespace: this.#namespace });
    return items.filter((c) => !c.metadata.deletionTimestamp);
  }

  async find(uid: string): Promise<StoredClient | undefined> {
    return (await this.all()).find((c) => uidOf(c) === uid);
  }

  async #judge(
    input: ClientInput,
    hasSecret: boolean,
    all: StoredClient[],
    self: StoredClient | undefined,
    options: WriteOptions,
  ) {
    const rivals = all
      .filter((c) => c !== self && c.spec.clientId === input.draft.clientId)
      .map((c) => (isReserved(c) ? REGISTRAR_CLIENT_ID : uidOf(c)))
      .concat(options.alsoClaimedBy ?? []);
    const { deviceEnrollmentRedirectAllowlist: allowlist } = await readSystemSettings(this.#cluster, this.#namespace);
    // Claiming the registrar's id is reported once, as the reserved id, not also as a duplicate.
    const reserved = input.draft.clientId === REGISTRAR_CLIENT_ID;
    return clientRuleFailures(
      { ...input.draft, ...(input.name !== undefined && { name: input.name }), hasSecret },
      {
        allowlist,
        rivals: reserved ? [] : rivals,
        registrar: false,
        // A device's client stays held to the allow-list's globs when an administrator replaces it.
        registration: self ? registrationOf(self) : 'managed',
        ...(options.asStored && { stored: true }),
      },
    );
  }

  /**
   * What a write of the input would meet, without writing: the replacement of the client `uid` when it exists, else
   * a creation. Judged against the store as it is now; the write judges again.
   */
  async check(input: ClientInput, options: WriteOptions = {}): Promise<Judgement> {
    const all = await this.all();
    const current = options.uid === undefined ? undefined : all.find((c) => uidOf(c) === options.uid);
    if (current && isReserved(current)) return { ok: false, why: 'reserved' };
    const hasSecret = input.secret !== undefined || current?.spec.clientSecretRef !== undefined;
    const failures = await this.#judge(input, hasSecret, all, current, options);
    return failures.length > 0 ? { ok: false, why: 'invalid', failures } : { ok: true };
  }

  async create(input: ClientInput, options: WriteOptions = {}): Promise<WriteResult> {
    const all = await this.all();
    const failures = await this.#judge(input, input.secret !== undefined, all, undefined, options);
    if (failures.length > 0) return { ok: false, why: 'invalid', failures };
    if (options.uid !== undefined && all.some((c) => uidOf(c) === options.uid)) return { ok: false, why: 'uid-taken' };
    const uid = options.uid ?? newUid();
    const id = input.draft.clientId;
    // Named after the id when it can be, else after its hash: two creates of one id collide on the name either way.
    let name = NAME_LIKE_ID.test(id) ? id : `client-${createHash('sha256').update(id).digest('hex').slice(0, 16)}`;
    for (let attempt = 1; ; attempt++) {
      const object: StoredClient = {
        apiVersion: API_VERSION,
        kind: 'OAuth2Client',
        metadata: {
          name,
          namespace: this.#namespace,
          labels: { [UID_LABEL]: uid },
          annotations: { [LAST_UPDATED_ANNOTATION]: new Date().toISOString() },
        },
        spec: specOf(input, input.name ?? id, input.secret !== undefined ? secretRefOf(name) : undefined),
      };
      try {
        const created = await this.#cluster.create(oauth2ClientKind, object, { fieldManager: FIELD_MANAGER });
        if (input.secret !== undefined) await this.#writeSecret(created, input.secret);
        return { ok: true, client: created };
      } catch (err) {
        if (!isApiError(err, 'AlreadyExists') || attempt >= MAX_ATTEMPTS) throw err;
        const holder = await this.#cluster.get<StoredClient>(oauth2ClientKind, name, this.#namespace);
        if (holder?.spec.clientId === id)
          return {
            ok: false,
            why: 'invalid',
            failures: [
              { message: `The client id '${id}' is not unique.`, errorCode: 'E4000', errorProperty: 'clientId' },
            ],
          };
        // A client renamed away from this id keeps its name: take another.
        name = `client-${newUid().toLowerCase()}`;
      }
    }
  }

  /** Replaces the client `uid` with the input, keeping its name when the input has none and its secret unless given. */
  async replace(uid: string, input: ClientInput, options: WriteOptions = {}): Promise<WriteResult> {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const all = await this.all();
      const current = all.find((c) => uidOf(c) === uid);
      if (!current) return { ok: false, why: 'not-found' };
      if (isReserved(current)) return { ok: false, why: 'reserved' };
      const secretRef =
        current.spec.clientSecretRef ?? (input.secret !== undefined ? secretRefOf(current.metadata.name) : undefined);
      const failures = await this.#judge(input, secretRef !== undefined, all, current, options);
      if (failures.length > 0) return { ok: false, why: 'invalid', failures };
      const spec = specOf(input, input.name ?? current.spec.name ?? current.spec.clientId, secretRef);
      try {
        const updated = await this.#cluster.update<StoredClient>(
          oauth2ClientKind,
          {
            ...current,
            metadata: {
              ...current.metadata,
              annotations: { ...current.metadata.annotations, [LAST_UPDATED_ANNOTATION]: new Date().toISOString() },
            },
            spec,
          },
          { fieldManager: FIELD_MANAGER },
        );
        if (input.secret !== undefined) await this.#writeSecret(updated, input.secret);
        return { ok: true, client: updated };
      } catch (err) {
        if (!isApiError(err, 'Conflict')) throw err;
      }
    }
    return { ok: false, why: 'contended' };
  }

  /** Deletes the client `uid` and the Secret it owns (a Secret it only refers to is someone else's). */
  async delete(uid: string): Promise<WriteResult> {
    const current = await this.find(uid);
    if (!current) return { ok: false, why: 'not-found' };
    if (isReserved(current)) return { ok: false, why: 'reserved' };
    try {
      await this.#cluster.delete(oauth2ClientKind, current.metadata.name, this.#namespace, {
        resourceVersion: current.metadata.resourceVersion,
      });
    } catch (err) {
      if (isApiError(err, 'NotFound')) return { ok: false, why: 'not-found' };
      if (isApiError(err, 'Conflict')) return { ok: false, why: 'contended' };
      throw err;
    }
    const ref = current.spec.clientSecretRef;
    const secret = ref && (await this.#cluster.get<KubeObject>(secretKind, ref.name, this.#namespace));
    if (secret?.metadata.ownerReferences?.some((o) => o.uid === current.metadata.uid)) {
      try {
        await this.#cluster.delete(secretKind, ref!.name, this.#namespace);
      } catch (err) {
        // The garbage collector may have been quicker.
        if (!isApiError(err, 'NotFound')) throw err;
      }
    }
    return { ok: true, client: current };
  }

  /**
   * Writes the secret into the Secret key the client refers to: the old value is refused from the next
   * authentication on, since client authentication reads the Secret every time. A Secret the API creates is owned
   * by the client, so deleting the client by any means removes it.
   */
  async #writeSecret(client: StoredClient, secret: string): Promise<void> {
    const ref = client.spec.clientSecretRef!;
    const existing = await this.#cluster.get<KubeObject>(secretKind, ref.name, this.#namespace);
    if (existing) {
      await this.#cluster.update<KubeObject>(
        secretKind,
        { ...existing, stringData: { [ref.key]: secret } },
        {
          fieldManager: FIELD_MANAGER,
        },
      );
      return;
    }
    await this.#cluster.create<KubeObject>(
      secretKind,
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          name: ref.name,
          namespace: this.#namespace,
          ownerReferences: [
            { apiVersion: API_VERSION, kind: 'OAuth2Client', name: client.metadata.name, uid: client.metadata.uid! },
          ],
        },
        type: 'Opaque',
        stringData: { [ref.key]: secret },
      },
      { fieldManager: FIELD_MANAGER },
    );
  }
}

/** The spec of a judged input (its lists hold only what the rules allow). */
function specOf(
  input: ClientInput,
  name: string,
  secretRef: OAuth2Client['spec']['clientSecretRef'],
): OAuth2Client['spec'] {
  const { draft } = input;
  return {
    clientId: draft.clientId,
    name,
    clientAuthenticationMethods: [
      ...draft.clientAuthenticationMethods,
    ] as OAuth2Client['spec']['clientAuthenticationMethods'],
    authorizationGrantTypes: [...draft.authorizationGrantTypes] as OAuth2Client['spec']['authorizationGrantTypes'],
    redirectUris: [...draft.redirectUris],
    scopes: [...draft.scopes] as OAuth2Client['spec']['scopes'],
    clientSettings: {
      requireProofKey: draft.requireProofKey,
      requireAuthorizationConsent: input.requireAuthorizationConsent,
    },
    ...(draft.tokenSettings && { tokenSettings: { ...draft.tokenSettings } }),
    ...(draft.jwks !== undefined && { jwks: draft.jwks as Record<string, unknown> }),
    ...(secretRef && { clientSecretRef: secretRef }),
  };
}
