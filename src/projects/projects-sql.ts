import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';

export interface ProjectRow {
  id: string;
  slug: string;
  name: string;
  environments: string[];
}

export { SLUG_RULE as SLUG_PATTERN, MAX_SLUG_CHARS as MAX_SLUG_LENGTH } from './settings-input.ts';

export async function createProject(db: Queryable, slug: string, name: string): Promise<ProjectRow> {
  const id = randomUUID();
  await db.query('INSERT INTO projects (id, slug, name) VALUES ($1, $2, $3)', [id, slug, name]);
  return { id, slug, name, environments: [] };
}

/** Renames a project (the caller holds its row lock). */
export async function renameProject(db: Queryable, id: string, name: string): Promise<void> {
  await db.query('UPDATE projects SET name = $2 WHERE id = $1', [id, name]);
}

/** The project row locked for a change in the caller's transaction. */
export async function lockProject(db: Queryable, id: string): Promise<{ id: string; slug: string; name: string } | null> {
  const result = await db.query<{ id: string; slug: string; name: string }>('SELECT id, slug, name FROM projects WHERE id = $1 FOR UPDATE', [id]);
  return result.rows[0] ?? null;
}

const PROJECT_COLUMNS = `p.id, p.slug, p.name,
  COALESCE((SELECT array_agg(e.name ORDER BY e.name COLLATE "C") FROM environments e WHERE e.project_id = p.id), '{}') AS environments`;

export async function listProjects(db: Queryable): Promise<ProjectRow[]> {
  const result = await db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p ORDER BY p.slug`);
  return result.rows;
}

export async function findProjectBySlug(db: Queryable, slug: string): Promise<ProjectRow | null> {
  const result = await db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.slug = $1`, [slug]);
  return result.rows[0] ?? null;
}

export async function findProjectById(db: Queryable, id: string): Promise<ProjectRow | null> {
  const result = await db.query<ProjectRow>(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = $1`, [id]);
  return result.rows[0] ?? null;
}

/** Project selection when the admin token names none: only an installation of one project. */
export async function soleProjectId(db: Queryable): Promise<string | null> {
  const result = await db.query<{ id: string }>('SELECT id FROM projects LIMIT 2');
  return result.rows.length === 1 ? result.rows[0]!.id : null;
}
