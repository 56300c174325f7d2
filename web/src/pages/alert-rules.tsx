// Alert rules of a project and their delivery log (docs/alerts.md). The signing secret of a new
// rule is shown once, here, right after it is created.

import { useEffect, useState } from 'react';
import { request, type AlertTestDelivery, type AlertDelivery, type AlertRule, type AlertRuleRequest, type NewAlertRule, type Project } from '../api.ts';
import { Loading } from '../components/common.tsx';
import { RuleForm } from './alert-rule-form.tsx';
import { FormProblems } from '../components/form-problems.tsx';
import { SecretOnce } from '../components/secret-once.tsx';
import { ConfirmDialog } from './settings/confirm-dialog.tsx';
import { problem, type FieldLabels, type FieldProblem } from '../lib/field-problems.ts';
import { FINDING_LABELS } from '../components/findings.tsx';
import { UserText } from '../components/user-text.tsx';
import { showBidiControls } from '../lib/bidi.ts';
import { formatTime } from '../lib/format.ts';

/** What a rule counts: a kind of finding, or a resolved problem that came back (docs/alerts.md). */
const RULE_KIND_LABELS: Record<AlertRule['kind'], string> = { ...FINDING_LABELS, regression: 'A resolved problem came back' };

const HOUR_MS = 3_600_000;

export const RULE_LABELS: FieldLabels = {
  name: 'Name',
  kind: 'Finding',
  path: 'Field path',
  entityType: 'Entity type',
  environment: 'Environment',
  'threshold.count': 'At least (findings)',
  'threshold.windowMinutes': 'Within (minutes)',
  threshold: 'Threshold',
  'channel.url': 'URL',
  'channel.type': 'Channel',
};

/** The form's own checks of the threshold, the server's rules in words (src/alerts/rule-input.ts). */
export function thresholdProblems(count: string, windowMinutes: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!/^\d+$/.test(count) || Number(count) < 1 || Number(count) > 1_000_000) problems.push(problem('threshold.count', RULE_LABELS, 'must be a whole number from 1 to 1000000'));
  if (!/^\d+$/.test(windowMinutes) || Number(windowMinutes) < 1 || Number(windowMinutes) > 1440) problems.push(problem('threshold.windowMinutes', RULE_LABELS, 'must be a whole number of minutes from 1 to 1440 (a day)'));
  return problems;
}

/** The receiver's answer to a test, in words. */
function testText(answer: AlertTestDelivery): string {
  if (answer.outcome === 'sent') return `the receiver answered ${answer.statusCode} in ${answer.durationMs} ms.`;
  if (answer.outcome === 'error_status') return `the receiver answered ${answer.statusCode}, which is not a success (2xx).`;
  if (answer.outcome === 'blocked') return answer.error === 'host_not_allowed' ? 'not sent: the host is not in ALERT_ALLOWED_HOSTS.' : 'not sent: the signing secret cannot be read with this server\'s key.';
  return `no answer (${answer.error ?? 'failed'}).`;
}

export function AlertRulesPage({ project }: { project: Project }) {
  const [rules, setRules] = useState<AlertRule[] | null>(null);
  const [created, setCreated] = useState<NewAlertRule | null>(null);
  const [log, setLog] = useState<{ rule: AlertRule; items: AlertDelivery[] } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [problems, setProblems] = useState<FieldProblem[]>([]);
  const [removing, setRemoving] = useState<AlertRule | null>(null);
  const [editing, setEditing] = useState<AlertRule | null>(null);
  const [tested, setTested] = useState<{ rule: AlertRule; answer: AlertTestDelivery } | null>(null);
  const base = `/v1/projects/${project.id}/alert-rules`;
  const options = { projectId: project.id };
  const reload = () => request<{ items: AlertRule[] }>(base, options).then((data) => setRules(data.items), setError);

  useEffect(() => {
    document.title = showBidiControls(`Alerts · ${project.name} · jtrace`);
    void reload();
  }, [project.id]);

  const create = async (body: AlertRuleRequest, form: HTMLFormElement) => {
    setError(null);
    try {
      setCreated(await request<NewAlertRule>(base, { ...options, method: 'POST', body }));
      // A second Enter must not make the same rule again: the form starts over.
      form.reset();
      await reload();
    } catch (e) {
      setError(e);
    }
  };

  const save = async (body: AlertRuleRequest) => {
    setError(null);
    try {
      await request<AlertRule>(`${base}/${editing!.id}`, { ...options, method: 'PATCH', body });
      setEditing(null);
      await reload();
    } catch (e) {
      setError(e);
    }
  };

  const mute = async (rule: AlertRule, until: string | null) => {
    setError(null);
    try {
      await request<AlertRule>(`${base}/${rule.id}`, { ...options, method: 'PATCH', body: { mutedUntil: until } });
      await reload();
    } catch (e) {
      setError(e);
    }
  };

  const sendTest = async (rule: AlertRule) => {
    setError(null);
    setTested(null);
    try {
      const answer = await request<AlertTestDelivery>(`${base}/${rule.id}/test`, { ...options, method: 'POST' });
      setTested({ rule, answer });
    } catch (e) {
      setError(e);
    }
  };

  const showLog = async (rule: AlertRule) => {
    setError(null);
    try {
      setLog({ rule, items: (await request<{ items: AlertDelivery[] }>(`${base}/${rule.id}/deliveries`, options)).items });
    } catch (e) {
      setError(e);
    }
  };

  return (
    <>
      <div className="page-heading">
        <h1>Alerts</h1>
      </div>
      <p className="muted">Rules send a signed webhook when findings reach a threshold. With no rule nothing is sent.</p>
      <FormProblems error={error} labels={RULE_LABELS} problems={problems} />
      {created ? (
        <SecretOnce
          id="rule-secret"
          heading={<>Rule “<UserText text={created.name} />” created</>}
          warning={<><strong>Copy its signing secret now: it will not be shown again.</strong> The receiver checks each delivery's signature with it (docs/alerts.md).</>}
          label="Signing secret"
          value={created.secret}
          copyLabel="Copy secret"
          onDone={() => setCreated(null)}
        />
      ) : null}
      {tested ? (
        <p role="status" className={tested.answer.outcome === 'sent' ? 'notice' : 'error-message'}>
          Test of <UserText text={tested.rule.name} />: {testText(tested.answer)}
        </p>
      ) : null}
      {rules === null ? <Loading what="alert rules" /> : null}
      {rules && rules.length === 0 ? <p role="status">No alert rule yet.</p> : null}
      {rules && rules.length > 0 ? (
        <table className="settings-table stack">
          <caption>Alert rules</caption>
          <thead>
            <tr>
              <th scope="col">Rule</th>
              <th scope="col">When</th>
              <th scope="col">Channel</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((rule) => (
              <tr key={rule.id}>
                <td data-label="Rule"><UserText text={rule.name} /></td>
                <td data-label="When">
                  {RULE_KIND_LABELS[rule.kind]}
                  {rule.path ? <> <code><UserText text={rule.path} /></code></> : null}
                  {rule.environment ? <> in <UserText text={rule.environment} /></> : null} · at least {rule.threshold.count} in {rule.threshold.windowMinutes} min
                </td>
                <td data-label="Channel">
                  {rule.channel.type} <UserText text={rule.channel.url} />
                </td>
                <td data-label="State">{rule.mutedUntil ? `muted until ${formatTime(rule.mutedUntil)}` : rule.state}</td>
                <td className="cell-actions">
                  {rule.mutedUntil ? (
                    <button type="button" onClick={() => mute(rule, null)}>Unmute</button>
                  ) : (
                    <button type="button" onClick={() => mute(rule, new Date(Date.now() + HOUR_MS).toISOString())}>Mute 1 hour</button>
                  )}{' '}
                  <button type="button" onClick={() => { setProblems([]); setError(null); setEditing(rule); }}>
                    Edit <span className="visually-hidden"><UserText text={rule.name} /></span>
                  </button>{' '}
                  <button type="button" onClick={() => showLog(rule)}>
                    Delivery log <span className="visually-hidden"><UserText text={rule.name} /></span>
                  </button>{' '}
                  <button type="button" onClick={() => void sendTest(rule)}>
                    Send a test <span className="visually-hidden"><UserText text={rule.name} /></span>
                  </button>{' '}
                  <button type="button" className="danger small" onClick={() => setRemoving(rule)}>
                    Delete… <span className="visually-hidden"><UserText text={rule.name} /></span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {log ? (
        <section aria-labelledby="log-heading">
          <h2 id="log-heading">
            Delivery log of <UserText text={log.rule.name} />
          </h2>
          {log.items.length === 0 ? <p role="status">Nothing sent yet.</p> : null}
          <ul>
            {log.items.map((d) => (
              <li key={`${d.notificationId} ${d.attempt}`}>
                {formatTime(d.at)} · {d.notification} · attempt {d.attempt} · {d.outcome}
                {d.statusCode === null ? '' : ` ${d.statusCode}`}
                {d.error === null ? '' : ` (${d.error})`}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <ConfirmDialog
        open={removing !== null}
        title={<>Delete the rule “<UserText text={removing?.name ?? ''} />”?</>}
        action="Delete rule"
        onConfirm={async () => {
          await request(`${base}/${removing!.id}`, { ...options, method: 'DELETE' });
          if (log?.rule.id === removing!.id) setLog(null);
          await reload();
        }}
        onClose={() => setRemoving(null)}
      >
        <p>Nothing more is sent for it.</p>
      </ConfirmDialog>
      {editing ? (
        <RuleForm key={editing.id} project={project} kindLabels={RULE_KIND_LABELS} rule={editing} checkThreshold={thresholdProblems} onProblems={setProblems} onSubmit={save} onCancel={() => setEditing(null)} />
      ) : (
        <RuleForm project={project} kindLabels={RULE_KIND_LABELS} checkThreshold={thresholdProblems} onProblems={setProblems} onSubmit={create} />
      )}
    </>
  );
}
