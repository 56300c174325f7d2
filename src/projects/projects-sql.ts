import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/pool.ts';

export interface ProjectRow {
  id: string;
  slug: string;
  name: string;
  environments: string[];
}

export const SLUG_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_SLUG_LENGTH = 64;

export async function createProject(db: Queryable, slug: string, name: string): Promise<ProjectRow> {
  const id = randomUUID();
  await db.query('INSERT INTO projects (id, slug, name) VALUES ($1, $2, $3)', [id, slug, name]);
  return { id, slug, name, environments: [] };
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
