// The live capture preview: what ingestion would store for one event under the settings being
// edited, asked of the server (the same preparation ingestion runs) shortly after each edit.
import { useEffect, useState } from 'react';
import { request, type CapturePreview, type CapturePreviewRequest, type EnvironmentDetail } from '../../api.ts';
import { FormProblems } from '../../components/form-problems.tsx';
import { SETTINGS_LABELS } from './environment-problems.ts';
import { UserText } from '../../components/user-text.tsx';
import { formatJson, formatTime } from '../../lib/format.ts';

export type DraftSettings = CapturePreviewRequest['settings'];

/** Wait after the last keystroke before asking: typing a rule should not send a request per key. */
const DEBOUNCE_MS = 350;

const EXAMPLE = JSON.stringify(
  {
    protocolVersion: '0.1',
    event: {
      id: 'evt_preview_1',
      journeyId: 'jrn_preview_1',
      environment: '',
      service: 'checkout',
      entity: { type: 'order', id: 'ord-1001' },
      operation: 'received',
      name: 'order received',
      timestamp: '2026-01-01T00:00:00.000Z',
      input: { customer: { email: 'ada@example.com', plan: 'gold' }, password: 'hunter2' },
    },
  },
  null,
  2,
);

export function CapturePreviewPanel({ url, environment, settings, recentEvents, blocked = false }: {
  /** The environment's route; the preview is its `/capture-preview`. */
  url: string;
  /** The settings form found a problem and says so: no preview is asked, and no second message shown. */
  blocked?: boolean;
  environment: string;
  settings: DraftSettings;
  recentEvents: EnvironmentDetail['recentEvents'];
}) {
  const [source, setSource] = useState<'event' | 'paste'>(recentEvents.length > 0 ? 'event' : 'paste');
  const [eventId, setEventId] = useState(recentEvents[0]?.id ?? '');
  const [pasted, setPasted] = useState(() => EXAMPLE.replace('"environment": ""', `"environment": ${JSON.stringify(environment)}`));
  const [preview, setPreview] = useState<CapturePreview | null>(null);
  const [error, setError] = useState<unknown>(null);
  const settingsKey = JSON.stringify(settings);

  useEffect(() => {
    let body: CapturePreviewRequest;
    if (blocked) {
      setPreview(null);
      setError(null);
      return;
    }
    if (source === 'event') {
      if (eventId === '') return;
      body = { settings, eventId };
    } else {
      try {
        body = { settings, envelope: JSON.parse(pasted) as unknown };
      } catch {
        setPreview(null);
        setError(new Error('The pasted text is not valid JSON.'));
        return;
      }
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      request<CapturePreview>(`${url}/capture-preview`, { method: 'POST', body, signal: controller.signal }).then(
        (answer) => {
          setPreview(answer);
          setError(null);
        },
        (e: unknown) => {
          if (controller.signal.aborted) return;
          setPreview(null);
          setError(e);
        },
      );
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // settingsKey stands for settings: a new object with the same rules asks nothing again.
  }, [url, settingsKey, source, eventId, pasted, blocked]);

  return (
    <section className="card capture-preview" aria-labelledby="preview-title">
      <h3 id="preview-title">Preview: what would be stored</h3>
      <p className="muted">Under the settings above, before they are saved.</p>
      <fieldset className="preview-source">
        <legend>Event</legend>
        <label>
          <input type="radio" name="preview-source" checked={source === 'event'} disabled={recentEvents.length === 0} onChange={() => setSource('event')} /> A recent event
        </label>
        <label>
          <input type="radio" name="preview-source" checked={source === 'paste'} onChange={() => setSource('paste')} /> A pasted event
        </label>
      </fieldset>
      {source === 'event' ? (
        <>
          <label htmlFor="preview-event">Recent event</label>
          <select id="preview-event" value={eventId} onChange={(e) => setEventId(e.target.value)}>
            {recentEvents.map((e) => (
              <option key={e.id} value={e.id}>
                {formatTime(e.eventTimestamp)} · {e.service} · {e.name}
              </option>
            ))}
          </select>
          <p className="muted">A recorded event holds only what its settings kept then: the preview shows what these settings would keep of that.</p>
        </>
      ) : (
        <>
          <label htmlFor="preview-envelope">Event envelope (JSON, as an SDK sends it)</label>
          <textarea id="preview-envelope" rows={10} spellCheck={false} value={pasted} onChange={(e) => setPasted(e.target.value)} />
        </>
      )}
      <div aria-live="polite" className="preview-result">
        {blocked ? <p className="muted">The preview waits until the settings above are valid.</p> : null}
        <FormProblems error={error} labels={SETTINGS_LABELS} />
        {preview ? <PreviewResult preview={preview} /> : null}
      </div>
    </section>
  );
}

function PreviewResult({ preview }: { preview: CapturePreview }) {
  if (preview.refusal) {
    return (
      <p className="error-message">
        Ingestion would refuse this event: <code>{preview.refusal.code}</code> <UserText text={preview.refusal.message} />
        {preview.refusal.details?.map((d) => (
          <span key={d.path}>
            {' '}
            (<UserText text={`${d.path}: ${d.message}`} />)
          </span>
        ))}
      </p>
    );
  }
  const stored = preview.stored!;
  const parts: Array<[string, unknown]> = [
    ['Input', stored.inputPayload],
    ['Output', stored.outputPayload],
    ['Error', stored.error],
    ['Metadata', stored.customMetadata],
    ['Runtime', stored.runtimeMetadata],
    ['Deployment', stored.deploymentMetadata],
  ];
  return (
    <>
      <p>
        Captured as <strong>{preview.effectiveCaptureMode}</strong>.
      </p>
      <dl className="preview-parts">
        {parts.map(([label, value]) => (
          <div key={label}>
            <dt>{label}</dt>
            <dd>{value === null ? <span className="muted">not stored</span> : <pre tabIndex={0}>{formatJson(value)}</pre>}</dd>
          </div>
        ))}
      </dl>
    </>
  );
}
