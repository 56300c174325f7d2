// Settings · Instance (owners): version and build, migrations, key rotation status (what
// `jtrace rotate:status` says), the checks of `jtrace doctor` that apply to a running server,
// and the switches the server was started with. Nothing here is a secret.
import { useEffect, useState } from 'react';
import { request, type InstanceInfo } from '../../api.ts';
import { ErrorMessage, Loading } from '../../components/common.tsx';
import { UserText } from '../../components/user-text.tsx';

export function InstancePage() {
  const [info, setInfo] = useState<InstanceInfo | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    document.title = 'Instance · Settings · jtrace';
    request<InstanceInfo>('/v1/instance').then(setInfo, setError);
  }, []);
  if (error) return <ErrorMessage error={error} />;
  if (!info) return <Loading what="the instance" />;
  const rotation = info.keyRotation;
  return (
    <>
      <h2>Instance</h2>
      <section className="card instance-section" aria-labelledby="instance-build">
        <h3 id="instance-build">Version</h3>
        <dl className="instance-facts">
          <dt>Version</dt>
          <dd>
            <code>{info.version}</code> ({info.buildSource === 'build' ? 'fixed at build' : 'from package.json'})
          </dd>
          <dt>Commit</dt>
          <dd>{info.commit ? <code>{info.commit}</code> : <span className="muted">not recorded</span>}</dd>
          <dt>Migrations</dt>
          <dd>
            {info.migrations.pending === 0 ? 'up to date' : `${info.migrations.pending} pending`} (latest {info.migrations.latest}; applied {info.migrations.applied.join(', ')})
          </dd>
          <dt>OpenTelemetry input</dt>
          <dd>{info.otlpEnabled ? 'on (OTLP_ENABLED)' : 'off'}</dd>
          <dt>Full payload capture</dt>
          <dd>{info.fullPayloadCaptureAllowed ? 'allowed (ALLOW_FULL_PAYLOAD_CAPTURE)' : 'not allowed'}</dd>
        </dl>
      </section>
      <section className="card instance-section" aria-labelledby="instance-checks">
        <h3 id="instance-checks">Checks</h3>
        <p className="muted">
          The checks of <code>jtrace doctor</code> that apply to a running server.
        </p>
        <ul className="instance-checks">
          {info.checks.map((check) => (
            <li key={check.check} className={`check check-${check.status}`}>
              <span className="check-status">{check.status}</span> <strong>{check.check}</strong> <UserText text={check.detail} />
              {check.fix && check.status !== 'ok' ? (
                <div className="muted">
                  Fix: <UserText text={check.fix} />
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      </section>
      <section className="card instance-section" aria-labelledby="instance-rotation">
        <h3 id="instance-rotation">Key rotation</h3>
        <p>
          Current key <code>{rotation.currentKeyId}</code>; previous key {rotation.previousKeyId ? <code>{rotation.previousKeyId}</code> : 'not configured'}.{' '}
          {rotation.done ? 'Everything rotate:reencrypt moves is under the current key.' : 'Not done: run jtrace rotate:reencrypt.'}
        </p>
        <table className="settings-table">
          <caption className="visually-hidden">Stored values by key</caption>
          <thead>
            <tr>
              <th scope="col">Values</th>
              <th scope="col">Current key</th>
              <th scope="col">Previous key</th>
              <th scope="col">No configured key</th>
            </tr>
          </thead>
          <tbody>
            {[...rotation.kinds, { kind: 'apiKeys', label: 'active API keys', ...rotation.apiKeys }].map((row) => (
              <tr key={row.kind}>
                <th scope="row">{row.label}</th>
                <td className="num">{row.current}</td>
                <td className="num">{row.previous}</td>
                <td className="num">{row.unreadable}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </>
  );
}
