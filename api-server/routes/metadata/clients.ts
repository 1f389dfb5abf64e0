import {
  clientUid,
  isReserved,
  uidOf,
  type ClientAdministration,
  type ClientInput,
  type WriteResult,
} from '../../../core/auth/clients/administration.ts';
import { KLASS, parseClientBody, RESERVED_REPORT } from '../../services/oauth2-clients/representation.ts';
import { importErrorReport, outcomeOf, uidOfObject, type Importer } from './importer.ts';
import type { ImportErrorReport, Judged } from './report.ts';

interface JudgedClient extends Judged {
  input?: ClientInput;
}

const report = (message: string, errorCode = 'E4000') =>
  importErrorReport(KLASS, { message, errorCode, errorProperty: 'id' });

/** The import's reports of a write the client administration refused. */
function failuresOf(result: Exclude<WriteResult, { ok: true }>): ImportErrorReport[] {
  switch (result.why) {
    case 'invalid':
      return result.failures.map((f) => importErrorReport(KLASS, f));
    case 'reserved':
      return [importErrorReport(KLASS, RESERVED_REPORT)];
    case 'not-found':
      return [report('The client was deleted while the import ran.', 'E5001')];
    case 'uid-taken':
      return [report('Another client took this uid while the import ran.', 'E5000')];
    case 'contended':
      return [report('The client kept changing while the import ran; import it again.', 'Conflict')];
  }
}

/**
 * The import of OAuth2 clients (`oAuth2Clients`), in the representation of `/api/oAuth2Clients` and judged by the
 * client administration: the same body parser, the same rules, the same writes. An imported client keeps its uid
 * and is judged as stored (its `settings.client.require-proof-key` kept as exported; spec 2); the other objects of
 * the import that claim its client id count as rivals. An update without `clientSecret` keeps the stored secret.
 */
export function clientImporter(clients: ClientAdministration): Importer {
  return {
    collection: 'oAuth2Clients',
    klass: KLASS,

    async judge(objects, strategy) {
      const stored = await clients.all();
      const judged: JudgedClient[] = [];
      for (const [index, object] of objects.entries()) {
        const { uid, error } = uidOfObject(object, KLASS, clientUid);
        const current = uid === undefined ? undefined : stored.find((c) => uidOf(c) === uid);
        const outcome = error ?? outcomeOf(strategy, current !== undefined, uid, KLASS);
        if (typeof outcome !== 'string') {
          judged.push({ index, ...(uid !== undefined && { uid }), outcome: 'created', errors: [outcome] });
          continue;
        }
        if (current && isReserved(current)) {
          judged.push({ index, uid: uid!, outcome, errors: [importErrorReport(KLASS, RESERVED_REPORT)] });
          continue;
        }
        if (outcome === 'deleted') {
          judged.push({ index, uid: uid!, outcome, errors: [] });
          continue;
        }
        const parsed = parseClientBody(object);
        judged.push({
          index,
          ...(uid !== undefined && { uid }),
          outcome,
          errors: parsed.ok ? [] : parsed.reports.map((r) => importErrorReport(KLASS, r)),
          ...(parsed.ok && { input: parsed.input }),
        });
      }
      for (const object of judged) {
        if (!object.input) continue;
        const clientId = object.input.draft.clientId;
        const alsoClaimedBy = judged
          .filter((other) => other !== object && other.input?.draft.clientId === clientId)
          .map((other) => `object ${other.index} of the import`);
        const judgement = await clients.check(object.input, {
          asStored: true,
          alsoClaimedBy,
          ...(object.uid !== undefined && { uid: object.uid }),
        });
        if (!judgement.ok) object.errors.push(...failuresOf(judgement));
      }
      return judged;
    },

    async apply(judged) {
      const applied: Judged[] = [];
      for (const object of judged as JudgedClient[]) {
        if (object.errors.length > 0) {
          applied.push(object);
          continue;
        }
        const { uid, input } = object;
        const result =
          object.outcome === 'deleted'
            ? await clients.delete(uid!)
            : object.outcome === 'updated'
              ? await clients.replace(uid!, input!, { asStored: true })
              : await clients.create(input!, { asStored: true, ...(uid !== undefined && { uid }) });
        applied.push(result.ok ? { ...object, uid: uidOf(result.client) } : { ...object, errors: failuresOf(result) });
      }
      return applied;
    },
  };
}
