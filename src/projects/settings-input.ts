// What a project's and an environment's settings may be set to, in one place: the settings
// routes and the CLI (project:create, project:rename, environment:set) check them here. Only zod, src/protocol and
// the shared storable-text rule, so the interface can take the request type from it.
import { z } from 'zod';
import { storableText } from '../http/body-fields.ts';
import { isValidRedactionRule } from '../protocol/redaction/operator-rules.ts';

export const CAPTURE_MODE_VALUES = ['metadata-only', 'allowlisted-fields', 'redacted-payload', 'full-payload'] as const;

/** Days an environment keeps journeys: at least one, at most a hundred years (as DEFAULT_RETENTION_DAYS). */
export const MIN_RETENTION_DAYS = 1;
export const MAX_RETENTION_DAYS = 36_500;
/** Rules and allowlist paths per environment: each one is applied to every event, so the lists stay short. */
export const MAX_SETTING_ENTRIES = 200;
/** Characters of one rule or path: far beyond any real key path, short enough to bound the work per event. */
export const MAX_SETTING_ENTRY_LENGTH = 512;

/** An allowlist path is literal keys joined by dots (event protocol 5.2): no empty key. */
export function isValidAllowlistPath(path: string): boolean {
  return path !== '' && !path.split('.').some((segment) => segment === '');
}

const entry = storableText().min(1).max(MAX_SETTING_ENTRY_LENGTH);

/** A change of settings: what is named replaces the setting, what is omitted stays as it was. */
export const environmentChangeSchema = z.strictObject({
  captureMode: z.enum(CAPTURE_MODE_VALUES).optional(),
  retentionDays: z.int().min(MIN_RETENTION_DAYS).max(MAX_RETENTION_DAYS).optional(),
  redactionPaths: z
    .array(entry.refine(isValidRedactionRule, 'is not a valid redaction rule (event protocol 5.5)'))
    .max(MAX_SETTING_ENTRIES)
    .optional(),
  captureAllowlist: z
    .array(entry.refine(isValidAllowlistPath, 'is not a dot path of keys'))
    .max(MAX_SETTING_ENTRIES)
    .optional(),
});

export type EnvironmentChangeRequest = z.input<typeof environmentChangeSchema>;
export type EnvironmentChange = z.output<typeof environmentChangeSchema>;

export type CheckedChange = { ok: true; change: EnvironmentChange } | { ok: false; path: string; message: string };

/** Checks a change; a refusal names the first offending field (`redactionPaths.2`) and why. */
export function checkEnvironmentChange(value: unknown): CheckedChange {
  const parsed = environmentChangeSchema.safeParse(value);
  if (parsed.success) return { ok: true, change: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, path: issue.path.join('.'), message: issue.message };
}

/** The settings the preview captures under: a whole set, as the form holds it before saving. */
export const captureSettingsSchema = z.strictObject({
  captureMode: z.enum(CAPTURE_MODE_VALUES),
  redactionPaths: environmentChangeSchema.shape.redactionPaths.unwrap(),
  captureAllowlist: environmentChangeSchema.shape.captureAllowlist.unwrap(),
});

/** The preview's body: the settings being edited and either a pasted envelope or a recorded event. */
export const capturePreviewSchema = z
  .strictObject({ settings: captureSettingsSchema, envelope: z.unknown().optional(), eventId: storableText().min(1).max(128).optional() })
  .refine((body) => (body.envelope === undefined) !== (body.eventId === undefined), { message: 'give either envelope or eventId', path: ['envelope'] });
export type CapturePreviewRequest = z.input<typeof capturePreviewSchema>;

/** Code points of an environment's name: what the event envelope admits (event protocol 2.2). */
export const MAX_ENVIRONMENT_NAME_CHARS = 64;

/**
 * A new environment: its name as events will carry it, and optionally its retention (else the
 * server's DEFAULT_RETENTION_DAYS). Blanks around the name or control characters in it would
 * make an environment no event names by mistake, so they are refused.
 */
export const newEnvironmentSchema = z.strictObject({
  name: storableText()
    .min(1)
    .refine((v) => [...v].length <= MAX_ENVIRONMENT_NAME_CHARS, `must be at most ${MAX_ENVIRONMENT_NAME_CHARS} characters`)
    .refine((v) => v.trim() === v && !/[\u0000-\u001f\u007f]/.test(v), 'must not start or end with blanks or hold control characters'),
  retentionDays: z.int().min(MIN_RETENTION_DAYS).max(MAX_RETENTION_DAYS).optional(),
});
export type NewEnvironmentRequest = z.input<typeof newEnvironmentSchema>;

/** A new name for an environment: the rules of a new one's name. */
export const environmentRenameSchema = newEnvironmentSchema.pick({ name: true });

/** A project's slug and name (project:create, POST /v1/projects). */
export const SLUG_RULE = /^[a-z0-9]+(-[a-z0-9]+)*$/;
export const MAX_SLUG_CHARS = 64;
export const MAX_PROJECT_NAME_CHARS = 200;
const projectName = storableText().trim().min(1).max(MAX_PROJECT_NAME_CHARS);
export const newProjectSchema = z.strictObject({
  slug: storableText().max(MAX_SLUG_CHARS).regex(SLUG_RULE, 'must be lowercase letters, digits and single hyphens'),
  name: projectName,
});
export const projectRenameSchema = z.strictObject({ name: projectName });
export type NewProjectRequest = z.input<typeof newProjectSchema>;
