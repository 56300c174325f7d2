import { useRef } from 'react';
import { request, type JourneyDetail, type Project } from '../api.ts';
import { ErrorMessage } from '../components/common.tsx';
import { navigate } from '../router.tsx';
import { entityIdText } from '../lib/format.ts';
import { UserText } from '../components/user-text.tsx';
import { useAllowed } from '../roles.tsx';
import { useAction } from '../lib/use-action.ts';

/** Deleting is final: the confirmation names the journey and what goes with it. */
export function DeleteJourney(props: { project: Project; journey: JourneyDetail; title: string }) {
  // Deleting takes the operator role: a viewer is not offered the button.
  return useAllowed(props.project.id, 'journey.delete') ? <DeleteJourneyButton {...props} /> : null;
}

function DeleteJourneyButton({ project, journey, title }: { project: Project; journey: JourneyDetail; title: string }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const { busy, error, run } = useAction();
  const confirm = () => {
    void run(async () => {
      await request(`/v1/journeys/${encodeURIComponent(journey.journeyId)}`, { method: 'DELETE', projectId: project.id });
      dialog.current?.close();
      navigate(`/projects/${project.id}/journeys?deleted=1`);
    });
  };
  return (
    <>
      <button type="button" className="danger" onClick={() => dialog.current?.showModal()}>
        Delete…
      </button>
      <dialog ref={dialog} aria-labelledby="delete-heading" className="confirm">
        <h2 id="delete-heading">Delete the journey “<UserText text={title} />”?</h2>
        <p>
          This deletes its {journey.eventCount} events, its aliases and the replay runs of its events, for <UserText text={journey.entity.type} />{' '}
          <code>
            <UserText text={entityIdText(journey.entity.id)} />
          </code>. It cannot be undone.
        </p>
        <ErrorMessage error={error} />
        <div className="dialog-actions">
          <button type="button" autoFocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" className="danger" onClick={confirm} disabled={busy}>
            Delete journey
          </button>
        </div>
      </dialog>
    </>
  );
}
