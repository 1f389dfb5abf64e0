import { describe, expect, it } from 'vitest';
import { selectedMembers } from './dhis2-pager.ts';

const MEMBERS = ['id', 'name', 'clientId', 'created', 'lastUpdated'];

describe("DHIS2's fields selection", () => {
  it('selects the named members in the order of the record, ignoring names no member has', () => {
    expect(selectedMembers('clientId,id,nothing', MEMBERS)).toEqual(['id', 'clientId']);
    expect(selectedMembers(undefined, MEMBERS, 'id,name')).toEqual(['id', 'name']);
    expect(selectedMembers(':all', MEMBERS)).toEqual(MEMBERS);
  });

  it('leaves out the members named with !, after * as alone', () => {
    expect(selectedMembers('*,!created,!lastUpdated', MEMBERS)).toEqual(['id', 'name', 'clientId']);
    expect(selectedMembers('id,name,!name', MEMBERS)).toEqual(['id']);
  });
});
