/**
 * node-oidc-provider's storage in Redis, for the durable row of the token endpoint bench (bench/auth-token.ts),
 * laid out as the provider's example Redis adapter lays it out, which is how its users run it in production:
 * - each record under `<model>:<id>`, expiring with the record; a record that can be consumed (codes, refresh
 *   tokens) is a hash whose `payload` field holds the JSON and whose `consumed` field is set by one HSET, others a
 *   string of JSON;
 * - lookups by `uid` and `userCode` through keys holding the record's id, expiring with it;
 * - a list per grant of the keys of its tokens, so that revoking the grant deletes them all;
 * - each upsert one MULTI/EXEC transaction, so the server appends it to its log (and fsyncs it) as one write.
 */
import { Redis } from 'ioredis';
import type { Adapter, AdapterPayload } from 'oidc-provider';

/** Models whose records belong to a grant, and are deleted when it is revoked. */
const GRANT_MEMBERS = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
]);
/** Models whose records are marked consumed once used. */
const CONSUMABLE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

const grantKey = (grantId: string) => `grant:${grantId}`;
const uidKey = (uid: string) => `uid:${uid}`;
const userCodeKey = (userCode: string) => `userCode:${userCode}`;

/** The adapter class node-oidc-provider instantiates once per model, over one connection to `url`. */
export function redisAdapter(url: string) {
  const redis = new Redis(url, { keyPrefix: 'oidc:' });

  return class RedisAdapter implements Adapter {
    readonly #model: string;

    constructor(model: string) {
      this.#model = model;
    }

    #key = (id: string) => `${this.#model}:${id}`;

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const key = this.#key(id);
      const json = JSON.stringify(payload);
      const transaction = redis.multi();
      if (CONSUMABLE.has(this.#model)) transaction.hset(key, { payload: json });
      else transaction.set(key, json);
      if (expiresIn) transaction.expire(key, expiresIn);
      if (GRANT_MEMBERS.has(this.#model) && payload.grantId) {
        const grant = grantKey(payload.grantId);
        transaction.rpush(grant, key);
        // The grant's list lives as long as its longest-lived token.
        if (expiresIn && expiresIn > (await redis.ttl(grant))) transaction.expire(grant, expiresIn);
      }
      for (const index of [payload.uid && uidKey(payload.uid), payload.userCode && userCodeKey(payload.userCode)]) {
        if (!index) continue;
        transaction.set(index, id);
        if (expiresIn) transaction.expire(index, expiresIn);
      }
      await transaction.exec();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      if (!CONSUMABLE.has(this.#model)) {
        const json = await redis.get(this.#key(id));
        return json === null ? undefined : (JSON.parse(json) as AdapterPayload);
      }
      const { payload, consumed } = await redis.hgetall(this.#key(id));
      if (payload === undefined) return undefined;
      const record = JSON.parse(payload) as AdapterPayload;
      return consumed === undefined ? record : { ...record, consumed: Number(consumed) };
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = await redis.get(uidKey(uid));
      return id === null ? undefined : this.find(id);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const id = await redis.get(userCodeKey(userCode));
      return id === null ? undefined : this.find(id);
    }

    async consume(id: string): Promise<void> {
      await redis.hset(this.#key(id), 'consumed', Math.floor(Date.now() / 1000));
    }

    async destroy(id: string): Promise<void> {
      await redis.del(this.#key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const grant = grantKey(grantId);
      // The list holds keys as this adapter names them; the client adds its prefix to each when deleting.
      const members = await redis.lrange(grant, 0, -1);
      await redis
        .multi()
        .del(...members, grant)
        .exec();
    }
  };
}
