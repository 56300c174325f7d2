// The body of a new alert rule: what to watch (a finding kind, optionally a path, entity type and
// environment), how often it must occur (every occurrence, or at least N in M minutes) and where
// to say so (a signed JSON webhook or a Slack-style incoming webhook).

import { z } from 'zod';
import { storableText } from '../http/body-fields.ts';

/** A finding kind, or `regression`: a resolved problem that came back (docs/problems.md). */
const RULE_KINDS = ['lost', 'changed', 'duplicated', 'failed', 'overdue', 'skipped_step', 'regression'] as const;

export const alertRuleInputSchema = z.strictObject({
  name: storableText().min(1).max(200),
  kind: z.enum(RULE_KINDS),
  path: storableText().min(1).max(1024).nullable().default(null),
  entityType: storableText().min(1).max(128).nullable().default(null),
  environment: storableText().min(1).max(64).nullable().default(null),
  /** Omitted: every occurrence (at least 1 in 1 minute, grouped per minute). */
  threshold: z
    .strictObject({ count: z.int().min(1).max(1_000_000), windowMinutes: z.int().min(1).max(1440) })
    .default({ count: 1, windowMinutes: 1 }),
  channel: z.strictObject({ type: z.enum(['webhook', 'slack']), url: storableText().min(1).max(2048) }),
});

export type AlertRuleInput = z.output<typeof alertRuleInputSchema>;

/**
 * A change of a rule: any of its fields, checked as on creation (an omitted field keeps its
 * value, null clears an optional filter), and/or muting until a time (null unmutes).
 */
export const alertRulePatchSchema = z
  .strictObject({
    name: storableText().min(1).max(200).optional(),
    kind: z.enum(RULE_KINDS).optional(),
    path: storableText().min(1).max(1024).nullable().optional(),
    entityType: storableText().min(1).max(128).nullable().optional(),
    environment: storableText().min(1).max(64).nullable().optional(),
    threshold: z.strictObject({ count: z.int().min(1).max(1_000_000), windowMinutes: z.int().min(1).max(1440) }).optional(),
    channel: z.strictObject({ type: z.enum(['webhook', 'slack']), url: storableText().min(1).max(2048) }).optional(),
    mutedUntil: z.iso.datetime({ offset: true }).nullable().optional(),
  })
  .refine((patch) => Object.keys(patch).length > 0, { message: 'Name at least one field to change.' });

export type AlertRulePatch = z.output<typeof alertRulePatchSchema>;
