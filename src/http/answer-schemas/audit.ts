// Answers of the audit log (GET /v1/audit-log): the spec's audit rows, the settings history and
// the accounts' trail in one list, told apart by `kind`.
import { z } from 'zod';
import { timestampSchema } from '../answers.ts';

const jsonObject = (description: string) => z.record(z.string(), z.unknown()).nullable().describe(description);

export const auditEntrySchema = z
  .strictObject({
    kind: z.enum(['audit', 'settings', 'account']).describe('audit: a row of section 6; settings: a settings change; account: sign-ins and accounts.'),
    id: z.string().describe('The row number within its kind.'),
    time: timestampSchema,
    action: z.string(),
    project: z.strictObject({ id: z.uuid(), slug: z.string(), name: z.string() }).nullable().describe('null for account rows.'),
    actor: z.strictObject({
      kind: z.string().nullable().describe('user, admin-token, api-key, cli or none; null for rows written before actors were recorded.'),
      email: z.string().nullable(),
      keyPrefix: z.string().nullable(),
      clientAddress: z.string().nullable(),
    }),
    subject: z.string().nullable().describe('What a settings change changed (an environment name, a destination id, a project slug).'),
    details: jsonObject('The audit row\'s details (section 6); null for settings changes.'),
    before: jsonObject('Settings before the change, only the keys that changed; never a secret or header value.'),
    after: jsonObject('Settings after the change, only the keys that changed.'),
  })
  .meta({ id: 'AuditEntry', description: 'One row of the audit log or the settings history.' });
