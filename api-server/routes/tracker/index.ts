import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isApiError } from '../../../core/cluster/errors.ts';
import type { ResourceKind } from '../../../core/resources/kind.ts';
import { programKind, type Program } from '../../../core/resources/program/schema.ts';
import { trackedEntityTypeKind, type TrackedEntityType } from '../../../core/resources/tracked-entity-type/schema.ts';
import { applyChangeLogPatch, parseChangeLogPatch } from '../../../core/tracker/change-log-patch.ts';
import { changeLogEnabled, findByUid, type TrackerMetadata } from '../../../core/tracker/metadata.ts';
import { HttpError } from '../../errors.ts';
import {
  commonErrorResponses,
  errorDetailSchema,
  objectReportMessageSchema,
  webMessageErrorSchema,
} from '../../schemas.ts';
import {
  JSON_PATCH_MEDIA_TYPE,
  changeLogPatchSchema,
  programRecordSchema,
  trackedEntityTypeRecordSchema,
  uidParams,
} from './schemas.ts';

const tags = ['Tracker metadata'];
/** Compare-and-swap attempts before a patch gives up to concurrent writers (each re-reads and re-tests). */
const MAX_ATTEMPTS = 5;

export function programRecord(program: Program) {
  const { uid, displayName, trackedEntityType, programStage } = program.spec;
  return {
    id: uid,
    ...(displayName !== undefined && { displayName }),
    enableChangeLog: changeLogEnabled(program),
    programType: trackedEntityType ? ('WITH_REGISTRATION' as const) : ('WITHOUT_REGISTRATION' as const),
    ...(trackedEntityType && { trackedEntityType: { id: trackedEntityType } }),
    ...(programStage && { programStages: [{ id: programStage }] }),
  };
}

export function trackedEntityTypeRecord(type: TrackedEntityType) {
  const { uid, displayName } = type.spec;
  return { id: uid, ...(displayName !== undefined && { displayName }), enableChangeLog: changeLogEnabled(type) };
}

interface Area {
  path: string;
  kind: ResourceKind;
  /** What messages call one object. */
  noun: string;
  /** DHIS2's class name, which its ObjectReport carries. */
  klass: string;
}

const areas: Area[] = [
  { path: '/api/programs', kind: programKind, noun: 'program', klass: 'org.hisp.dhis.program.Program' },
  {
    path: '/api/trackedEntityTypes',
    kind: trackedEntityTypeKind,
    noun: 'tracked entity type',
    klass: 'org.hisp.dhis.trackedentity.TrackedEntityType',
  },
];

/** Only a JSON Patch body is taken, checked before the body is read (after the read-only refusal). */
async function requireJsonPatch(request: FastifyRequest, _reply: FastifyReply) {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== JSON_PATCH_MEDIA_TYPE)
    throw new HttpError(
      'UnsupportedMediaType',
      `The body must be a JSON Patch with Content-Type: ${JSON_PATCH_MEDIA_TYPE}, not ${type ?? 'none'}.`,
    );
}

/**
 * The tracker changelog switches of spec 3 (DESIGN.md §6): `Program` and `TrackedEntityType` resources read and
 * patched as DHIS2's `/api/programs/{uid}` and `/api/trackedEntityTypes/{uid}` are, by their DHIS2 uid. A patch
 * may only replace, add or test `/enableChangeLog`; it is applied by compare-and-swap on the resourceVersion, so
 * its `test` operations hold against the value it changes. See docs/changelog.md.
 */
export const trackerRoutes: FastifyPluginAsyncZod = async (app) => {
  const { cluster, namespace } = app.stratus;

  // The body is parsed in the handler, after the object is found, so that a patch answers 415, 404, 409 in order.
  app.addContentTypeParser(JSON_PATCH_MEDIA_TYPE, { parseAs: 'string' }, (_request, body, done) => done(null, body));

  const find = async <T extends TrackerMetadata>(area: Area, uid: string) => {
    const object = await findByUid<T>(cluster, area.kind, namespace, uid);
    if (!object) throw new HttpError('NotFound', `No ${area.noun} has the uid '${uid.slice(0, 100)}'.`);
    return object;
  };

  for (const area of areas) {
    const isProgram = area.kind === programKind;
    app.get(
      `${area.path}/:uid`,
      {
        schema: {
          summary: `A ${area.noun} of a tracker target, with its changelog switch`,
          tags,
          params: uidParams,
          response: {
            200: isProgram ? programRecordSchema : trackedEntityTypeRecordSchema,
            404: errorDetailSchema,
            ...commonErrorResponses,
          },
        },
      },
      async (request) => {
        const object = await find(area, request.params.uid);
        return isProgram ? programRecord(object as Program) : trackedEntityTypeRecord(object as TrackedEntityType);
      },
    );

    app.patch(
      `${area.path}/:uid`,
      {
        onRequest: requireJsonPatch,
        // The body is checked by parseChangeLogPatch, which answers 409 with every problem instead of a 422.
        attachValidation: true,
        schema: {
          summary: `Switch the tracker changelog of a ${area.noun}`,
          description:
            `JSON Patch (RFC 6902, \`Content-Type: ${JSON_PATCH_MEDIA_TYPE}\`) of \`/enableChangeLog\` only: ` +
            '`replace` or `add` with a boolean, and `test`. Any other operation, path or value, or a failing ' +
            '`test`, answers 409 and changes nothing. 200 with the DHIS2 ObjectReport message.',
          tags,
          consumes: [JSON_PATCH_MEDIA_TYPE],
          params: uidParams,
          body: changeLogPatchSchema,
          response: {
            200: objectReportMessageSchema,
            404: errorDetailSchema,
            409: webMessageErrorSchema,
            415: errorDetailSchema,
            ...commonErrorResponses,
          },
        },
      },
      async (request) => {
        const { uid } = request.params;
        let object = await find(area, uid);
        let body: unknown;
        try {
          body = JSON.parse(request.body as unknown as string);
        } catch (err) {
          const message = `The body is not JSON: ${err instanceof Error ? err.message : String(err)}`;
          throw new HttpError('PatchRefused', message, [], {
            errorReports: [{ message, errorCode: 'PatchRefused', errorProperty: 'body' }],
          });
        }
        const parsed = parseChangeLogPatch(body);
        if (!parsed.ok)
          throw new HttpError(
            'PatchRefused',
            `The patch is refused: only replace, add and test of /enableChangeLog with a boolean are allowed.`,
            [],
            {
              errorReports: parsed.problems.map((p) => ({
                message: p.message,
                errorCode: 'PatchRefused',
                errorProperty: p.property,
              })),
            },
          );
        for (let attempt = 1; ; attempt++) {
          // The first attempt uses the object read above; each retry reads it again.
          if (attempt > 1) object = await find(area, uid);
          const current = changeLogEnabled(object);
          const applied = applyChangeLogPatch(current, parsed.operations);
          if (!applied.ok) {
            const message = `Operation ${applied.index} tests enableChangeLog = ${applied.expected}, but it is ${applied.actual}; nothing was changed.`;
            throw new HttpError('PatchTestFailed', message, [], {
              errorReports: [{ message, errorCode: 'PatchTestFailed', errorProperty: 'enableChangeLog' }],
            });
          }
          if (applied.value !== current) {
            try {
              await cluster.patch(
                area.kind,
                object.metadata.name,
                {
                  type: 'merge',
                  body: {
                    metadata: { resourceVersion: object.metadata.resourceVersion },
                    spec: { enableChangeLog: applied.value },
                  },
                },
                namespace,
                { fieldManager: 'stratus-api-server' },
              );
            } catch (err) {
              if (!isApiError(err, 'Conflict')) throw err;
              if (attempt >= MAX_ATTEMPTS)
                throw new HttpError('Conflict', `The ${area.noun} '${uid}' kept changing; try again.`);
              continue;
            }
            request.log.info(
              { kind: area.kind.kind, uid, name: object.metadata.name, enableChangeLog: applied.value },
              'tracker changelog switched',
            );
          }
          return {
            httpStatus: 'OK' as const,
            httpStatusCode: 200 as const,
            status: 'OK' as const,
            response: { responseType: 'ObjectReport' as const, uid, klass: area.klass, errorReports: [] },
          };
        }
      },
    );
  }
};
