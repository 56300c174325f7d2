import { isUuid } from '../protocol/identifiers.ts';
import type { CliIo } from './context.ts';
import type { Queryable } from '../db/pool.ts';
import { findProjectById, findProjectBySlug, type ProjectRow } from '../projects/projects-sql.ts';

/** A command's <project>: the slug, as every command names it, or the id, as the API does. */
export async function findProjectArgument(db: Queryable, value: string): Promise<ProjectRow | null> {
  return (await findProjectBySlug(db, value)) ?? (isUuid(value) ? await findProjectById(db, value.toLowerCase()) : null);
}

export function unknownProjectMessage(value: string): string {
  return `no project with the slug or id ${value}`;
}

/** findProjectArgument for a command that stops when the project is unknown: says so on stderr. */
export async function projectOrReport(db: Queryable, io: CliIo, value: string): Promise<ProjectRow | null> {
  const project = await findProjectArgument(db, value);
  if (!project) io.err(unknownProjectMessage(value));
  return project;
}
