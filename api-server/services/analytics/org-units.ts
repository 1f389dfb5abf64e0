/**
 * The org units of an analytics table: the features of the collection file the table was computed with, by id,
 * with their names and, where the collection carries one (DHIS2 org units: `level` and `parent_id`), their
 * hierarchy. Only these property columns are read, never the geometry (`readGeoParquetProperties`).
 */
import { readFile } from 'node:fs/promises';
import { readGeoParquetProperties } from '../../../core/features/geoparquet-read.ts';

export interface OrgUnit {
  id: string;
  name: string;
  level?: number;
  parent?: string;
}

export interface OrgUnits {
  byId: ReadonlyMap<string, OrgUnit>;
  /** Whether the features carry a level, so that `LEVEL-n` selects. */
  hasLevels: boolean;
}

const NAME_PROPERTY = 'name';
const LEVEL_PROPERTY = 'level';
const PARENT_PROPERTY = 'parent_id';

export async function readOrgUnits(path: string, idProperty: string): Promise<OrgUnits> {
  const { count, properties } = await readGeoParquetProperties(await readFile(path), path, [
    idProperty,
    NAME_PROPERTY,
    LEVEL_PROPERTY,
    PARENT_PROPERTY,
  ]);
  const column = (name: string) => properties.get(name) ?? [];
  const [ids, names, levels, parents] = [idProperty, NAME_PROPERTY, LEVEL_PROPERTY, PARENT_PROPERTY].map(column);
  const byId = new Map<string, OrgUnit>();
  if (properties.has(idProperty))
    for (let i = 0; i < count; i++) {
      const id = ids![i];
      if (typeof id !== 'string' && typeof id !== 'number') continue;
      const name = names![i];
      const level = Number(levels![i]);
      const parent = parents![i];
      byId.set(String(id), {
        id: String(id),
        name: typeof name === 'string' && name !== '' ? name : String(id),
        ...(Number.isInteger(level) && { level }),
        ...((typeof parent === 'string' || typeof parent === 'number') && { parent: String(parent) }),
      });
    }
  return { byId, hasLevels: [...byId.values()].some((unit) => unit.level !== undefined) };
}

export class UnknownOrgUnitError extends Error {
  constructor(item: string, reason: string) {
    super(`ou ${item} ${reason}`);
    this.name = 'UnknownOrgUnitError';
  }
}

/** Whether `ancestor` is `unit`'s parent or a parent of its parent, following the collection's `parent_id`s. */
function descendsFrom(units: OrgUnits, unit: OrgUnit, ancestor: string): boolean {
  const seen = new Set<string>();
  for (let parent = unit.parent; parent !== undefined && !seen.has(parent); parent = units.byId.get(parent)?.parent) {
    if (parent === ancestor) return true;
    seen.add(parent);
  }
  return false;
}

/**
 * The org unit ids the `ou` items select, as DHIS2 reads them: ids, and `LEVEL-n` for the units of level n (within
 * the other items, which are then their ancestors, as in `ou=PARENT;LEVEL-2`). Throws UnknownOrgUnitError.
 */
export function resolveOrgUnits(units: OrgUnits, items: readonly string[]): string[] {
  const levelItems = items.filter((item) => item.startsWith('LEVEL-'));
  const ids = items.filter((item) => !item.startsWith('LEVEL-'));
  for (const id of ids)
    if (!units.byId.has(id) && levelItems.length === 0)
      throw new UnknownOrgUnitError(id, 'is not an org unit of the table');
  if (levelItems.length === 0) return [...new Set(ids)];
  if (!units.hasLevels)
    throw new UnknownOrgUnitError(levelItems[0]!, 'selects a level, but the features of the table carry no level');
  const levels = new Set(
    levelItems.map((item) => {
      const level = /^LEVEL-([1-9]\d{0,2})$/.exec(item)?.[1];
      if (level === undefined) throw new UnknownOrgUnitError(item, 'is not a level; expected LEVEL-n, n from 1');
      return Number(level);
    }),
  );
  const known = new Set([...units.byId.values()].flatMap((unit) => [unit.id, unit.parent ?? []].flat()));
  for (const id of ids)
    if (!known.has(id)) throw new UnknownOrgUnitError(id, 'is not an org unit of the table nor a parent of one');
  const selected: string[] = [];
  for (const unit of units.byId.values())
    if (
      unit.level !== undefined &&
      levels.has(unit.level) &&
      (ids.length === 0 || ids.some((ancestor) => ancestor === unit.id || descendsFrom(units, unit, ancestor)))
    )
      selected.push(unit.id);
  return selected;
}
