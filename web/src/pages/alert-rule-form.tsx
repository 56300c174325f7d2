// The form of an alert rule: empty to create one, prefilled to change one. The threshold is checked
// here first; the server's other problems come back per field (web/src/lib/field-problems.ts).

import type { FormEvent } from 'react';
import type { AlertRule, AlertRuleRequest, Project } from '../api.ts';
import { EnvironmentOptions } from '../components/common.tsx';
import { UserText } from '../components/user-text.tsx';
import type { FieldProblem } from '../lib/field-problems.ts';

export interface RuleFormProps {
  project: Project;
  kindLabels: Record<AlertRule['kind'], string>;
  /** The rule being changed; none for a new rule. */
  rule?: AlertRule;
  checkThreshold(count: string, windowMinutes: string): FieldProblem[];
  onProblems(problems: FieldProblem[]): void;
  onSubmit(body: AlertRuleRequest, form: HTMLFormElement): Promise<void>;
  onCancel?(): void;
}

export function RuleForm({ project, kindLabels, rule, checkThreshold, onProblems, onSubmit, onCancel }: RuleFormProps) {
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    const text = (name: string) => String(fields.get(name) ?? '').trim();
    const found = checkThreshold(text('count') || '1', text('windowMinutes') || '1');
    onProblems(found);
    if (found.length > 0) return;
    await onSubmit(
      {
        name: text('name'),
        kind: text('kind') as AlertRuleRequest['kind'],
        path: text('path') || null,
        entityType: text('entityType') || null,
        environment: text('environment') || null,
        threshold: { count: Number(text('count') || '1'), windowMinutes: Number(text('windowMinutes') || '1') },
        channel: { type: text('channel') === 'slack' ? 'slack' : 'webhook', url: text('url') },
      },
      form,
    );
  };
  return (
    // The settings forms' layout: each label above its field, the button as wide as its text.
    <form className="card settings-form" onSubmit={submit} aria-label={rule ? 'Edit alert rule' : 'New alert rule'}>
      <h2>{rule ? <>Edit rule “<UserText text={rule.name} />”</> : 'New rule'}</h2>
      <label htmlFor="rule-name">Name</label>
      <input id="rule-name" name="name" required defaultValue={rule?.name ?? ''} />
      <label htmlFor="rule-kind">Finding</label>
      <select id="rule-kind" name="kind" defaultValue={rule?.kind ?? 'lost'}>
        {Object.entries(kindLabels).map(([kind, label]) => (
          <option key={kind} value={kind}>
            {label}
          </option>
        ))}
      </select>
      <label htmlFor="rule-path">Field path (optional)</label>
      <input id="rule-path" name="path" defaultValue={rule?.path ?? ''} />
      <label htmlFor="rule-entity-type">Entity type (optional)</label>
      <input id="rule-entity-type" name="entityType" defaultValue={rule?.entityType ?? ''} />
      <label htmlFor="rule-environment">Environment (optional)</label>
      <select id="rule-environment" name="environment" defaultValue={rule?.environment ?? ''}>
        <EnvironmentOptions environments={project.environments} />
      </select>
      <label htmlFor="rule-count">At least (findings)</label>
      <input id="rule-count" name="count" inputMode="numeric" defaultValue={String(rule?.threshold.count ?? 1)} />
      <label htmlFor="rule-window">Within (minutes)</label>
      <input id="rule-window" name="windowMinutes" inputMode="numeric" defaultValue={String(rule?.threshold.windowMinutes ?? 1)} />
      <label htmlFor="rule-channel">Channel</label>
      <select id="rule-channel" name="channel" defaultValue={rule?.channel.type ?? 'webhook'}>
        <option value="webhook">Webhook (signed JSON)</option>
        <option value="slack">Slack-style incoming webhook</option>
      </select>
      <label htmlFor="rule-url">URL</label>
      <input id="rule-url" name="url" type="url" required placeholder="https://hooks.example.com/jtrace" defaultValue={rule?.channel.url ?? ''} />
      <div>
        <button type="submit">{rule ? 'Save changes' : 'Create rule'}</button>
        {onCancel ? <> <button type="button" onClick={onCancel}>Cancel</button></> : null}
      </div>
    </form>
  );
}
