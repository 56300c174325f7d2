// Whether the connection's role is a PostgreSQL superuser. A superuser connection turns any SQL
// reaching the application (an injection, a stolen connection string) into file reads and
// program runs (pg_read_file, COPY ... TO PROGRAM); the server warns at start and
// `jtrace doctor` fails its `role` check (docs/operations.md, "The application role").

import type { Queryable } from './pool.ts';

/** True when the session's role has superuser rights (rolsuper of the current user). */
export async function connectsAsSuperuser(db: Queryable): Promise<boolean> {
  const result = await db.query<{ superuser: boolean }>(`SELECT rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`);
  return result.rows[0]?.superuser === true;
}

/** The remedy, shared by the start-up warning and the doctor check. */
export const APPLICATION_ROLE_FIX =
  'connect DATABASE_URL as an application role without superuser rights: CREATE ROLE jtrace_app LOGIN PASSWORD ... NOSUPERUSER NOCREATEDB NOCREATEROLE, make it the owner of the database and its tables (docs/operations.md, "The application role")';
