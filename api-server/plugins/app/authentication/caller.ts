import type { User } from '../../../../core/resources/user/schema.ts';

/** Who sent a request (DESIGN.md §5): nobody, or a local user authenticated by one of three means. */
export type Caller =
  | { authenticated: false }
  | {
      authenticated: true;
      via: 'basic' | 'session' | 'bearer';
      user: User;
      username: string;
      authorities: string[];
      /** Bearer tokens: the client the token was issued to, and its scopes. */
      clientId?: string;
      scopes?: string[];
    };

export const ANONYMOUS: Caller = { authenticated: false };

export function callerOf(
  user: User,
  via: 'basic' | 'session' | 'bearer',
  extra: { clientId?: string; scopes?: string[] } = {},
): Caller {
  return { authenticated: true, via, user, username: user.spec.username, authorities: user.spec.authorities, ...extra };
}
