// API keys of a project (project admins): create one for an environment (the secret is shown
// once, here, with a copy button), list them with who made them and when they were last used,
// revoke one after a confirmation that names it.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { request, type ApiKey, type CreatedApiKey, type NewApiKeyRequest, type Project } from '../../api.ts';
import { ErrorMessage, Loading } from '../../components/common.tsx';
import { UserText } from '../../components/user-text.tsx';
import { formatTime } from '../../lib/format.ts';
import { ConfirmDialog } from './confirm-dialog.tsx';
import { useAction } from '../../lib/use-action.ts';
import { SecretOnce } from '../../components/secret-once.tsx';

// No environment has an empty name, so the empty value stands for "a new one".
const NEW_ENVIRONMENT = '';

export function ApiKeysPage({ project }: { project: Project }) {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const load = useCallback(() => {
    request<{ items: ApiKey[] }>(`/v1/projects/${project.id}/api-keys`).then((data) => setKeys(data.items), setError);
  }, [project.id]);
  useEffect(() => {
    document.title = `API keys · ${project.name} · Settings · jtrace`;
    load();
  }, [load, project.name]);

  const environments = [...new Set([...project.environments, ...(keys ?? []).map((k) => k.environment)])].sort();
  const active = (keys ?? []).filter((k) => k.revokedAt === null);
  const revoked = (keys ?? []).filter((k) => k.revokedAt !== null);
  return (
    <>
      <h2>API keys</h2>
      <p className="muted">Services send events with a key of one environment. A key is shown once, when it is made; only its prefix is kept in clear.</p>
      <NewKey
        project={project}
        environments={environments}
        onCreated={(answer) => {
          setCreated(answer);
          load();
        }}
      />
      {created ? <NewSecret created={created} onDone={() => setCreated(null)} /> : null}
      <ErrorMessage error={error} />
      {!keys ? (
        <Loading what="API keys" />
      ) : (
        <>
          <KeyTable caption="Active keys" keys={active} onRevoke={setRevoking} empty="No active key: services of this project cannot send events yet." />
          {revoked.length > 0 ? <KeyTable caption="Revoked keys" keys={revoked} empty="" /> : null}
        </>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={
          <>
            Revoke the key “<UserText text={revoking?.name ?? ''} />” (<code>{revoking?.prefix}</code>)?
          </>
        }
        action="Revoke key"
        onConfirm={async () => {
          await request(`/v1/api-keys/${encodeURIComponent(revoking!.prefix)}`, { method: 'DELETE' });
          load();
        }}
        onClose={() => setRevoking(null)}
      >
        <p>
          Services sending events with it to <UserText text={revoking?.environment ?? ''} /> are refused (401) from now on. This cannot be undone: make a new key
          and give it to them instead.
        </p>
      </ConfirmDialog>
    </>
  );
}

function NewKey({ project, environments, onCreated }: { project: Project; environments: string[]; onCreated: (created: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [environment, setEnvironment] = useState(environments[0] ?? NEW_ENVIRONMENT);
  const [newEnvironment, setNewEnvironment] = useState('');
  const { busy, error, run } = useAction();
  const choice = environments.includes(environment) ? environment : environments.length === 0 ? NEW_ENVIRONMENT : environment;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const body: NewApiKeyRequest = { name, environment: choice === NEW_ENVIRONMENT ? newEnvironment : choice };
      const created = await request<CreatedApiKey>(`/v1/projects/${project.id}/api-keys`, { method: 'POST', body });
      onCreated(created);
      // A new environment is listed from now on: the picker shows it chosen.
      setEnvironment(created.key.environment);
      setName('');
      setNewEnvironment('');
    });
  };
  return (
    <form onSubmit={submit} className="card settings-form" aria-labelledby="new-key-heading">
      <h3 id="new-key-heading">Make a key</h3>
      <label htmlFor="key-name">Name</label>
      <input id="key-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} placeholder="checkout service" />
      <label htmlFor="key-environment">Environment</label>
      <select id="key-environment" value={choice} onChange={(e) => setEnvironment(e.target.value)}>
        {environments.map((env) => (
          <option key={env} value={env}>
            {env}
          </option>
        ))}
        <option value={NEW_ENVIRONMENT}>A new environment…</option>
      </select>
      {choice === NEW_ENVIRONMENT ? (
        <>
          <label htmlFor="key-new-environment">New environment name</label>
          <input id="key-new-environment" required maxLength={64} value={newEnvironment} onChange={(e) => setNewEnvironment(e.target.value)} aria-describedby="key-new-environment-hint" />
          <p id="key-new-environment-hint" className="muted">
            Made with the default retention and the redacted-payload capture mode; change them on the Environments page.
          </p>
        </>
      ) : null}
      <div>
        <button type="submit" disabled={busy}>
          Make key
        </button>
      </div>
      <ErrorMessage error={error} />
    </form>
  );
}

/** The secret, once: it lives in this component's state only, so a reload cannot show it again. */
function NewSecret({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  return (
    <SecretOnce
      id="new-secret"
      heading={
        <>
          Your new key “<UserText text={created.key.name} />” for <UserText text={created.key.environment} />
        </>
      }
      warning={
        <>
          <strong>Copy it now: it will not be shown again.</strong> jtrace keeps only its prefix <code>{created.key.prefix}</code>; a lost key is revoked and
          replaced.
        </>
      }
      label="API key"
      value={created.apiKey}
      copyLabel="Copy key"
      onDone={onDone}
    />
  );
}

function KeyTable({ caption, keys, empty, onRevoke }: { caption: string; keys: ApiKey[]; empty: string; onRevoke?: (key: ApiKey) => void }) {
  if (keys.length === 0) return <p className="muted">{empty}</p>;
  return (
    <table className="settings-table stack api-keys">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Prefix</th>
          <th scope="col">Environment</th>
          <th scope="col">Created by</th>
          <th scope="col">Created</th>
          <th scope="col">{onRevoke ? 'Last used' : 'Revoked'}</th>
          {onRevoke ? (
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          ) : null}
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <tr key={key.prefix}>
            <td data-label="Name">
              <UserText text={key.name} />
            </td>
            <td data-label="Prefix">
              <code>{key.prefix}</code>
            </td>
            <td data-label="Environment">
              <UserText text={key.environment} />
            </td>
            <td data-label="Created by">{createdBy(key)}</td>
            <td data-label="Created">{formatTime(key.createdAt)}</td>
            {onRevoke ? (
              <>
                <td data-label="Last used">{key.lastUsedAt ? formatTime(key.lastUsedAt) : 'never'}</td>
                <td className="cell-actions">
                  <button type="button" className="danger small" onClick={() => onRevoke(key)}>
                    Revoke… <span className="visually-hidden">{key.name}</span>
                  </button>
                </td>
              </>
            ) : (
              <td data-label="Revoked">{formatTime(key.revokedAt!)}</td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function createdBy(key: ApiKey) {
  const by = key.createdBy;
  if (by === null) return <span className="muted">not recorded</span>;
  if (by.kind === 'user') return <UserText text={by.email ?? 'a person'} />;
  if (by.kind === 'cli') return 'the CLI';
  if (by.kind === 'admin-token') return 'the admin token';
  return <code>{by.keyPrefix}</code>;
}
