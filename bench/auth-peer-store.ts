/**
 * node-oidc-provider's storage made as durable as Stratus's, for the like-for-like row of the token endpoint bench
 * (bench/auth-token.ts): every record is kept in memory for reads, as the provider's default adapter does, and every
 * write reaches the disk before it returns (a temporary file flushed, renamed over the record's file, the directory
 * flushed), as a write to Stratus's embedded store does. Stratus commits concurrent writes together; this adapter
 * writes each on its own, as a provider over a file store would.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import { hexHash } from '../core/auth/digest.ts';
import { syncDirectory, writeFileAtomic } from '../core/files/durable.ts';

const records = new Map<string, AdapterPayload>();
const byUid = new Map<string, string>();
const byUserCode = new Map<string, string>();
const byGrant = new Map<string, Set<{ model: string; id: string }>>();

export function durableAdapter(root: string) {
  return class DurableAdapter implements Adapter {
    readonly #model: string;

    constructor(model: string) {
      this.#model = model;
    }

    #key = (id: string) => `${this.#model}:${id}`;
    #dir = () => join(root, this.#model);
    #file = (id: string) => join(this.#dir(), `${hexHash(id)}.json`);

    async upsert(id: string, payload: AdapterPayload): Promise<void> {
      records.set(this.#key(id), payload);
      if (payload.uid) byUid.set(payload.uid, id);
      if (payload.userCode) byUserCode.set(payload.userCode, id);
      if (payload.grantId) {
        let members = byGrant.get(payload.grantId);
        if (!members) byGrant.set(payload.grantId, (members = new Set()));
        members.add({ model: this.#model, id });
      }
      await writeFileAtomic(this.#file(id), JSON.stringify(payload));
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return records.get(this.#key(id));
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const id = byUid.get(uid);
      return id === undefined ? undefined : this.find(id);
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      const id = byUserCode.get(userCode);
      return id === undefined ? undefined : this.find(id);
    }

    async consume(id: string): Promise<void> {
      const payload = records.get(this.#key(id));
      if (!payload) return;
      payload.consumed = Math.floor(Date.now() / 1000);
      await writeFileAtomic(this.#file(id), JSON.stringify(payload));
    }

    async destroy(id: string): Promise<void> {
      if (!records.delete(this.#key(id))) return;
      await rm(this.#file(id), { force: true });
      await syncDirectory(this.#dir());
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const members = byGrant.get(grantId);
      byGrant.delete(grantId);
      for (const member of members ?? []) await new DurableAdapter(member.model).destroy(member.id);
    }
  };
}
