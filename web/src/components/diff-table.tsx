import type { ComparisonRow, DiffRow } from '../api.ts';
import { showBidiControls } from '../lib/bidi.ts';
import { formatValue } from '../lib/format.ts';
import { UserText } from './user-text.tsx';

/** Payload keys and values past this many characters are cut, with a button to show them whole. */
export const PAYLOAD_TEXT_LIMIT = 300;

const KIND_LABEL: Record<string, string> = {
  lost: 'lost',
  renamed: 'renamed',
  changed: 'changed',
  added: 'added',
  removed: 'removed',
};

/** Field-level differences; the server already puts lost values first and pairs renames. */
export function DiffTable({ rows, caption, beforeLabel, afterLabel, onFollow }: {
  rows: (DiffRow | ComparisonRow)[];
  caption: string;
  beforeLabel: string;
  afterLabel: string;
  /** Offered on each row with a path: follow that field through the journey. */
  onFollow?: FollowHandler;
}) {
  if (rows.length === 0) return <p className="muted">{caption}: no differences.</p>;
  return (
    <table className={onFollow ? 'diff payload-table with-actions stack' : 'diff payload-table stack'}>
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col" className="col-kind">Change</th>
          <th scope="col" className="col-field">Field</th>
          <th scope="col">{beforeLabel}</th>
          <th scope="col">{afterLabel}</th>
          {onFollow ? <th scope="col" className="col-actions"><span className="visually-hidden">Actions</span></th> : null}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, index) => (
          <tr key={index} className={`diff-${row.kind}`}>
            <td data-label="Change">
              <span className={`kind kind-${row.kind}`}>{KIND_LABEL[row.kind] ?? row.kind}</span>
            </td>
            <td data-label="Field">
              <code>{row.path === '' ? '(whole value)' : <UserText text={row.path} limit={PAYLOAD_TEXT_LIMIT} />}</code>
              {'renamedFrom' in row && row.renamedFrom !== undefined ? (
                <div className="sub">
                  from <code><UserText text={row.renamedFrom} limit={PAYLOAD_TEXT_LIMIT} /></code>
                </div>
              ) : null}
            </td>
            <td data-label={beforeLabel}>
              <code>{'before' in row ? <UserText text={formatValue(row.before)} limit={PAYLOAD_TEXT_LIMIT} /> : '(missing)'}</code>
            </td>
            <td data-label={afterLabel}>
              <code>{'after' in row ? <UserText text={formatValue(row.after)} limit={PAYLOAD_TEXT_LIMIT} /> : '(missing)'}</code>
            </td>
            {onFollow ? (
              <td className="cell-actions">
                {row.path === '' ? null : <FollowButton path={row.path} onFollow={onFollow} />}
              </td>
            ) : null}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Starts following a field; `origin` is the control used, where focus returns when following stops. */
export type FollowHandler = (path: string, origin?: HTMLElement) => void;

/** "Follow this field": the field's path through every step of the journey. */
export function FollowButton({ path, onFollow }: { path: string; onFollow: FollowHandler }) {
  return (
    <button type="button" className="small" onClick={(event) => onFollow(path, event.currentTarget)}>
      Follow<span className="visually-hidden"> {showBidiControls(path)}</span>
    </button>
  );
}
