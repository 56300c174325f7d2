// "Download JSON": the journey and all its events as the API returns them, as one file.
import { useState } from 'react';
import { request, type EventRow, type JourneyDetail, type Page } from '../api.ts';

export function DownloadJourney({ projectId, journeyId }: { projectId: string; journeyId: string }) {
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const download = async () => {
    setBusy(true);
    setFailed(false);
    try {
      const path = `/v1/journeys/${encodeURIComponent(journeyId)}`;
      const journey = await request<JourneyDetail>(path, { projectId });
      const events: EventRow[] = [];
      let cursor: string | null = null;
      do {
        const page: Page<EventRow> = await request<Page<EventRow>>(`${path}/events?limit=100${cursor ? '&cursor=' + encodeURIComponent(cursor) : ''}`, { projectId });
        events.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      const url = URL.createObjectURL(new Blob([JSON.stringify({ journey, events }, null, 2)], { type: 'application/json' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `${journeyId.replace(/[^\w.-]+/g, '_')}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch {
      setFailed(true);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" onClick={download} disabled={busy}>
        {busy ? 'Preparing…' : 'Download JSON'}
      </button>
      {failed ? <span role="alert" className="error-message">The download failed; try again.</span> : null}
    </>
  );
}
