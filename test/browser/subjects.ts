// Finding the journeys the browser tests, screenshots and benchmark look at, through the API
// as an operator's script reads it (bearer admin token).
import { TEST_ADMIN_TOKEN } from '../helpers/app.ts';

export interface Summary {
  journeyId: string;
  entity: { type: string; id: string };
  label: string | null;
  status: string;
  displayableAliases: { type: string; value: string }[];
}

export interface Row {
  id: string;
  name: string;
  hasInput: boolean;
  hasOutput: boolean;
}

export type Get = <T>(path: string) => Promise<T>;

export function adminApi(baseUrl: string, projectId: string): Get {
  return async <T>(path: string): Promise<T> => {
    const response = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'x-service-project-id': projectId } });
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
    return ((await response.json()) as { data: T }).data;
  };
}

export async function recentJourneys(get: Get): Promise<Summary[]> {
  const since = new Date(Date.now() - 7 * 86_400_000).toISOString();
  return (await get<{ items: Summary[] }>(`/v1/journeys?since=${since}&limit=100`)).items;
}

export async function journeyEvents(get: Get, journeyId: string): Promise<Row[]> {
  return (await get<{ items: Row[] }>(`/v1/journeys/${encodeURIComponent(journeyId)}/events?limit=100`)).items;
}

const HAS_PHONE = /phone"\s*:\s*"/;

/** Input and output share a top-level key: the step reshaped the record rather than answering something else. */
function sameShape(input: unknown, output: unknown): boolean {
  const keys = (value: unknown) => (typeof value === 'object' && value !== null ? Object.keys(value) : []);
  return keys(input).some((key) => keys(output).includes(key));
}

/** A journey whose step lost the phone number (input has one, output has none), and that step. */
export async function findLostPhone(get: Get): Promise<{ journey: Summary; eventId: string; rows: Row[] }> {
  for (const journey of await recentJourneys(get)) {
    const rows = await journeyEvents(get, journey.journeyId);
    for (const row of rows.filter((r) => r.hasInput && r.hasOutput)) {
      const detail = await get<{ inputPayload: unknown; outputPayload: unknown }>(`/v1/events/${encodeURIComponent(row.id)}`);
      if (HAS_PHONE.test(JSON.stringify(detail.inputPayload)) && !HAS_PHONE.test(JSON.stringify(detail.outputPayload)) && sameShape(detail.inputPayload, detail.outputPayload)) {
        return { journey, eventId: row.id, rows };
      }
    }
  }
  throw new Error('the demo has no journey that lost a phone number');
}

interface Changes {
  changes: { path: string; kind: string; steps: { eventId: string; service: string; name: string; inTransit: boolean; from: { service: string; name: string } | null }[] }[];
}

/** A journey whose value was lost across a hand-off (`inTransit` in its changes), and where. */
export async function findLostInTransit(get: Get): Promise<{ journey: Summary; path: string; from: string; to: string; eventId: string }> {
  for (const journey of await recentJourneys(get)) {
    const { changes } = await get<Changes>(`/v1/journeys/${encodeURIComponent(journey.journeyId)}/changes`);
    for (const change of changes.filter((c) => c.kind === 'lost')) {
      const step = change.steps.find((s) => s.inTransit && s.from !== null);
      if (step) return { journey, path: change.path, from: `${step.from!.service} · ${step.from!.name}`, to: `${step.service} · ${step.name}`, eventId: step.eventId };
    }
  }
  throw new Error('the demo has no journey that lost a value in transit');
}

interface FollowedPhone {
  steps: { name: string; output: { state: string } | null }[];
}

/** A completed journey of the given entity type whose step `stepName` kept the phone number in its output. */
export async function findKeptPhone(get: Get, entityType: string, stepName: string): Promise<Summary> {
  for (const journey of await recentJourneys(get)) {
    if (journey.status !== 'completed' || journey.entity.type !== entityType) continue;
    const field = await get<FollowedPhone>(`/v1/journeys/${encodeURIComponent(journey.journeyId)}/fields?path=customer.phone`);
    if (field.steps.some((step) => step.name === stepName && step.output?.state === 'present')) return journey;
  }
  throw new Error('the demo has no journey that kept its phone number');
}
