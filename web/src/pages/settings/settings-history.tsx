// A settings history: who changed what, with the values before and after (never a secret).
import type { SettingsChange } from '../../api.ts';
import { UserText } from '../../components/user-text.tsx';
import { formatTime } from '../../lib/format.ts';

const show = (value: unknown) => (value === undefined || value === null ? '—' : Array.isArray(value) ? (value.length === 0 ? '(none)' : value.join(', ')) : String(value));

function actorText(row: SettingsChange): string {
  if (row.actor.kind === 'user') return row.actor.email ?? 'a person';
  if (row.actor.kind === 'cli') return 'the jtrace CLI';
  if (row.actor.kind === 'admin-token') return 'the admin token';
  return row.actor.keyPrefix ? `API key ${row.actor.keyPrefix}` : row.actor.kind;
}

export function SettingsHistory({ rows, title }: { rows: SettingsChange[]; title: string }) {
  return (
    <section className="settings-history" aria-label={title}>
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p className="muted">No change recorded yet.</p>
      ) : (
        <table className="settings-table">
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What changed</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td>
                  <time dateTime={row.createdAt}>{formatTime(row.createdAt)}</time>
                </td>
                <td>
                  <UserText text={actorText(row)} />
                </td>
                <td>
                  <ul className="history-changes">
                    {Object.keys({ ...row.before, ...row.after }).map((key) => (
                      <li key={key}>
                        <code>{key}</code>: <UserText text={show(row.before?.[key])} /> → <UserText text={show(row.after?.[key])} />
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
