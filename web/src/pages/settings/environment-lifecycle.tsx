// Renaming and removing an environment. Any 1 to 64 characters make a name (unusual ones are
// said, as when adding one); removal is refused by the server while API keys, journeys or alert
// rules use the environment, and its answer says what to do first.
import { useState, type FormEvent } from 'react';
import { request, type EnvironmentDetail, type Project } from '../../api.ts';
import { FormProblems } from '../../components/form-problems.tsx';
import { UserText } from '../../components/user-text.tsx';
import { useAction } from '../../lib/use-action.ts';
import { ConfirmDialog } from './confirm-dialog.tsx';
import { unusualName } from './environments-page.tsx';

export function EnvironmentLifecycle({ project, name, onRenamed, onRemoved }: { project: Project; name: string; onRenamed: (name: string) => void; onRemoved: () => void }) {
  const url = `/v1/projects/${project.id}/environments/${encodeURIComponent(name)}`;
  const [newName, setNewName] = useState(name);
  const [removing, setRemoving] = useState(false);
  const { busy, error, run } = useAction();
  const unusual = unusualName(newName);
  const rename = (event: FormEvent) => {
    event.preventDefault();
    void run(async () => {
      const renamed = await request<EnvironmentDetail>(`${url}/rename`, { method: 'POST', body: { name: newName } });
      onRenamed(renamed.name);
    });
  };
  return (
    <>
      <form className="card settings-form" onSubmit={rename} aria-label={`Rename or remove ${name}`}>
        <h3>
          Rename or remove <UserText text={name} />
        </h3>
        <label htmlFor="env-new-name">New name, as events will carry it</label>
        <input id="env-new-name" required maxLength={64} value={newName} aria-describedby={unusual ? 'env-new-name-note' : undefined} onChange={(e) => setNewName(e.target.value)} />
        {unusual ? (
          <p id="env-new-name-note" className="muted name-note">
            {unusual}
          </p>
        ) : null}
        <p className="muted">Services must then send the new name; API keys and data stay with the environment.</p>
        <div className="form-actions">
          <button type="submit" disabled={busy || newName === name}>
            Rename
          </button>
          <button type="button" className="danger" onClick={() => setRemoving(true)}>
            Remove environment…
          </button>
        </div>
        <FormProblems error={error} labels={{ name: 'New name' }} />
      </form>
      <ConfirmDialog
        open={removing}
        title={<>Remove the environment “<UserText text={name} />”?</>}
        action="Remove environment"
        onConfirm={async () => {
          await request(url, { method: 'DELETE' });
          onRemoved();
        }}
        onClose={() => setRemoving(false)}
      >
        <p>Only an environment without API keys, journeys and alert rules can be removed.</p>
      </ConfirmDialog>
    </>
  );
}
