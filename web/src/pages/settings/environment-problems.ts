// The checks the environment settings form makes before sending, and its fields' labels for the
// server's details: the same rules as the server's (src/projects/settings-input.ts), said once.
import { isValidRedactionRule } from '../../../../src/protocol/redaction/operator-rules.ts';
import { problem, type FieldLabels, type FieldProblem } from '../../lib/field-problems.ts';

export const SETTINGS_LABELS: FieldLabels = {
  captureMode: 'Capture mode',
  retentionDays: 'Retention (days)',
  'redactionPaths.*': 'Redaction rules',
  redactionPaths: 'Redaction rules',
  'captureAllowlist.*': 'Capture allowlist',
  captureAllowlist: 'Capture allowlist',
  'settings.redactionPaths.*': 'Redaction rules',
  'settings.captureAllowlist.*': 'Capture allowlist',
  envelope: 'Event envelope',
  eventId: 'Recorded event',
};

/** Problems of the draft, line by line, before anything is sent. */
export function settingsProblems(draft: { retentionDays: string; redaction: string[]; allowlist: string[] }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const days = Number(draft.retentionDays);
  if (draft.retentionDays.trim() === '' || !Number.isInteger(days) || days < 1) problems.push(problem('retentionDays', SETTINGS_LABELS, 'must be a whole number of days, at least 1'));
  draft.redaction.forEach((rule, i) => {
    if (!isValidRedactionRule(rule)) problems.push(problem(`redactionPaths.${i}`, SETTINGS_LABELS, `“${rule}” is not a redaction rule: write a dot path such as customer.ssn, *.password, items[*].card or **.token`));
  });
  draft.allowlist.forEach((path, i) => {
    if (path.split('.').some((segment) => segment === '')) problems.push(problem(`captureAllowlist.${i}`, SETTINGS_LABELS, `“${path}” is not a dot path of keys such as order.total`));
  });
  return problems;
}
