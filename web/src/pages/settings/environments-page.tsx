// Settings · Environments: each environment's capture mode, retention, redaction rules and
// capture allowlist (and a new environment), with a live preview of what ingestion would store for an event under the
// settings being edited (pasted, or one of the environment's recent events), and the
// environment's own settings history. Saving writes a history row; it never writes an audit row.
import { useCallback, useEffect, useMemo, useState, type FormEvent } from 'react';
import { request, type EnvironmentChangeRequest, type EnvironmentDetail, type EnvironmentSettings, type NewEnvironmentRequest, type Project } from '../../api.ts';
import { ErrorMessage, Loading } from '../../components/common.tsx';
import { FormProblems, invalid } from '../../components/form-problems.tsx';
import { SETTINGS_LABELS, settingsProblems } from './environment-problems.ts';
import { UserText } from '../../components/user-text.tsx';
import { Link, navigate } from '../../router.tsx';
import { CapturePreviewPanel, type DraftSettings } from './capture-preview-panel.tsx';
import { SettingsHistory } from './settings-history.tsx';
import { useAction } from '../../lib/use-action.ts';
import { EnvironmentLifecycle } from './environment-lifecycle.tsx';

type Mode = EnvironmentSettings['captureMode'];

const MODES: Array<{ value: Mode; label: string }> = [
  { value: 'metadata-only', label: 'metadata-only: no payloads' },
  { value: 'allowlisted-fields', label: 'allowlisted-fields: only the allowlist' },
  { value: 'redacted-payload', label: 'redacted-payload: payloads with secrets redacted' },
  { value: 'full-payload', label: 'full-payload: payloads whole (built-in names still redacted)' },
];

/** One rule or path per line; blank lines are left out. */
const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');

export function EnvironmentsPage({ project, rest, reloadProjects }: { project: Project; rest: string; reloadProjects: () => void }) {
  const [environments, setEnvironments] = useState<EnvironmentSettings[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const load = useCallback(() => {
    request<{ items: EnvironmentSettings[] }>(`/v1/projects/${project.id}/environments`).then((data) => setEnvironments(data.items), setError);
  }, [project.id]);
  useEffect(() => {
    document.title = `Environments · ${project.name} · jtrace`;
    load();
  }, [load, project.name]);
  const created = (name: string) => {
    load();
    reloadProjects();
    navigate(`/settings/projects/${project.id}/environments/${encodeURIComponent(name)}`);
  };
  const changed = (name: string | null) => {
    load();
    reloadProjects();
    navigate(`/settings/projects/${project.id}/environments${name === null ? '' : `/${encodeURIComponent(name)}`}`);
  };
  const named = rest.startsWith('/') ? safeDecode(rest.slice(1)) : '';
  const selected = environments?.find((e) => e.name === named) ?? environments?.[0] ?? null;

  return (
    <>
      <h2>Environments</h2>
      <ErrorMessage error={error} />
      {!environments ? (
        <Loading what="environments" />
      ) : environments.length === 0 ? (
        <p className="muted">This project has no environment yet. Add one below, or make a key for one (it is created with the key).</p>
      ) : (
        <>
          <nav aria-label="Environments of the project" className="environment-tabs">
            <ul>
              {environments.map((e) => (
                <li key={e.name}>
                  <Link to={`/settings/projects/${project.id}/environments/${encodeURIComponent(e.name)}`} aria-current={e.name === selected?.name ? 'page' : undefined}>
                    <UserText text={e.name} />
                  </Link>{' '}
                  <span className="muted">{e.captureMode}</span>
                </li>
              ))}
            </ul>
          </nav>
          {selected ? <EnvironmentEditor key={selected.name} project={project} name={selected.name} /> : null}
          {selected ? <EnvironmentLifecycle key={`lifecycle ${selected.name}`} project={project} name={selected.name} onRenamed={changed} onRemoved={() => changed(null)} /> : null}
        </>
      )}
      {environments ? <AddEnvironment project={project} onCreated={created} /> : null}
    </>
  );
}

function AddEnvironment({ project, onCreated }: { project: Project; onCreated: (name: string) => void }) {
  const [form, setForm] = useState<{ name: string; retentionDays: string }>({ name: '', retentionDays: '' });
  const { busy, error, run } = useAction();
  const unusual = unusualName(form.name);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const body: NewEnvironmentRequest = { name: form.name, ...(form.retentionDays === '' ? {} : { retentionDays: Number(form.retentionDays) }) };
      const created = await request<EnvironmentDetail>(`/v1/projects/${project.id}/environments`, { method: 'POST', body });
      setForm({ name: '', retentionDays: '' });
      onCreated(created.name);
    });
  };
  return (
    <form className="card settings-form add-environment" onSubmit={submit} aria-label="Add an environment">
      <h3>Add an environment</h3>
      <label htmlFor="new-env-name">Name, as events will carry it</label>
      <input id="new-env-name" required maxLength={64} value={form.name} aria-describedby={unusual ? 'new-env-name-note' : undefined} onChange={(e) => setForm({ ...form, name: e.target.value })} />
      {/* Any 1 to 64 characters are a valid name (event protocol): said, not refused. */}
      {unusual ? (
        <p id="new-env-name-note" className="muted name-note">
          {unusual}
        </p>
      ) : null}
      <label htmlFor="new-env-retention">Retention (days, empty for the server's default)</label>
      <input id="new-env-retention" type="number" min={1} max={36500} step={1} value={form.retentionDays} onChange={(e) => setForm({ ...form, retentionDays: e.target.value })} />
      <div>
        <button type="submit" disabled={busy}>
          Add environment
        </button>
      </div>
      <FormProblems error={error} labels={{ name: 'Name', retentionDays: 'Retention (days)' }} />
    </form>
  );
}

/** What a service would find unusual in an environment name, or null: spaces, or characters beyond letters, digits, ., _ and -. */
export function unusualName(name: string): string | null {
  if (name === '') return null;
  if (/\s/.test(name)) return 'This name has spaces: services must send it exactly so, spaces included. Names such as "production" or "eu-staging" are the usual kind.';
  const odd = [...new Set([...name].filter((c) => !/[A-Za-z0-9._-]/.test(c)))];
  return odd.length === 0 ? null : `This name has characters services rarely use (${odd.join(' ')}): they must send it exactly so. Names such as "production" or "eu-staging" are the usual kind.`;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

interface Draft {
  captureMode: Mode;
  retentionDays: string;
  redaction: string;
  allowlist: string;
}

const draftOf = (e: EnvironmentDetail): Draft => ({
  captureMode: e.captureMode,
  retentionDays: String(e.retentionDays),
  redaction: e.redactionPaths.join('\n'),
  allowlist: e.captureAllowlist.join('\n'),
});

/** Only what differs from the saved settings is sent, so the history row shows the edit. */
function changeOf(saved: EnvironmentDetail, draft: Draft): EnvironmentChangeRequest {
  const change: EnvironmentChangeRequest = {};
  if (draft.captureMode !== saved.captureMode) change.captureMode = draft.captureMode;
  if (draft.retentionDays !== String(saved.retentionDays)) change.retentionDays = Number(draft.retentionDays);
  const redaction = lines(draft.redaction);
  if (redaction.join('\n') !== saved.redactionPaths.join('\n')) change.redactionPaths = redaction;
  const allowlist = lines(draft.allowlist);
  if (allowlist.join('\n') !== saved.captureAllowlist.join('\n')) change.captureAllowlist = allowlist;
  return change;
}

function EnvironmentEditor({ project, name }: { project: Project; name: string }) {
  const url = `/v1/projects/${project.id}/environments/${encodeURIComponent(name)}`;
  const [saved, setSaved] = useState<EnvironmentDetail | null>(null);
  const [draft, setDraft] = useState<Draft | null>(null);
  const { busy, error, setError, run } = useAction();
  const [status, setStatus] = useState<string | null>(null);
  const load = useCallback(() => {
    request<EnvironmentDetail>(url).then((detail) => {
      setSaved(detail);
      setDraft(draftOf(detail));
    }, setError);
  }, [url]);
  useEffect(load, [load]);
  const settings: DraftSettings | null = useMemo(
    () => (draft ? { captureMode: draft.captureMode, redactionPaths: lines(draft.redaction), captureAllowlist: lines(draft.allowlist) } : null),
    [draft],
  );
  if (!saved || !draft || !settings) return error ? <ErrorMessage error={error} /> : <Loading what="the environment" />;

  const change = changeOf(saved, draft);
  const unchanged = Object.keys(change).length === 0;
  // Said at once, by field and line, and sent nowhere: neither the preview nor the save.
  const problems = settingsProblems({ retentionDays: draft.retentionDays, redaction: settings.redactionPaths, allowlist: settings.captureAllowlist });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setStatus(null);
    if (problems.length > 0) return;
    void run(async () => {
      const detail = await request<EnvironmentDetail>(url, { method: 'PATCH', body: change });
      setSaved(detail);
      setDraft(draftOf(detail));
      setStatus('Saved. The change is in the history below; events received from now on are captured under it.');
    });
  };
  const fullRefused = !saved.fullPayloadAllowed;
  const id = (field: string) => `env-${field}`;
  return (
    <div className="environment-editor">
      <form className="card settings-form" onSubmit={submit} aria-label={`Settings of ${name}`}>
        <h3>
          Settings of <UserText text={name} />
        </h3>
        <label htmlFor={id('mode')}>Capture mode</label>
        <select id={id('mode')} value={draft.captureMode} aria-describedby={fullRefused ? id('mode-why') : undefined} onChange={(e) => setDraft({ ...draft, captureMode: e.target.value as Mode })}>
          {MODES.map((mode) => (
            <option key={mode.value} value={mode.value} disabled={mode.value === 'full-payload' && fullRefused && saved.captureMode !== 'full-payload'}>
              {mode.label}
              {mode.value === 'full-payload' && fullRefused ? ' (not allowed on this server)' : ''}
            </option>
          ))}
        </select>
        {fullRefused ? (
          <p id={id('mode-why')} className="muted">
            full-payload is not allowed here: this server runs without <code>ALLOW_FULL_PAYLOAD_CAPTURE=true</code>, so it would capture as redacted-payload.
            {saved.captureMode === 'full-payload' ? ' This environment is set to full-payload and is captured as redacted-payload.' : ''}
          </p>
        ) : null}
        <label htmlFor={id('retention')}>Retention (days)</label>
        <input id={id('retention')} type="number" required min={1} max={36500} step={1} value={draft.retentionDays} onChange={(e) => setDraft({ ...draft, retentionDays: e.target.value })} />
        <label htmlFor={id('redaction')}>Redaction rules, one per line</label>
        <textarea id={id('redaction')} rows={4} spellCheck={false} aria-describedby={id('redaction-hint')} aria-invalid={invalid(error, SETTINGS_LABELS, problems, 'redactionPaths')} value={draft.redaction} onChange={(e) => setDraft({ ...draft, redaction: e.target.value })} />
        <p id={id('redaction-hint')} className="muted">
          For example <code>customer.ssn</code>, <code>*.password</code>, <code>items[*].card</code> or <code>**.token</code>. Built-in secret names are always redacted.
        </p>
        <label htmlFor={id('allowlist')}>Capture allowlist, one path per line</label>
        <textarea id={id('allowlist')} rows={3} spellCheck={false} aria-describedby={id('allowlist-hint')} value={draft.allowlist} onChange={(e) => setDraft({ ...draft, allowlist: e.target.value })} />
        <p id={id('allowlist-hint')} className="muted">
          Dot paths of keys (<code>order.total</code>), used by allowlisted-fields only.
        </p>
        <div className="form-actions">
          <button type="submit" disabled={busy || unchanged}>
            Save settings
          </button>
          <button type="button" disabled={busy || unchanged} onClick={() => setDraft(draftOf(saved))}>
            Discard changes
          </button>
        </div>
        <FormProblems error={error} labels={SETTINGS_LABELS} problems={problems} />
        {status ? (
          <p role="status" className="notice">
            {status}
          </p>
        ) : null}
      </form>
      <CapturePreviewPanel url={url} environment={name} settings={settings} recentEvents={saved.recentEvents} blocked={problems.length > 0} />
      <SettingsHistory rows={saved.history} title={`History of ${name}`} />
    </div>
  );
}
