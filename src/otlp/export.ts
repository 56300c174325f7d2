import { AppError, ERROR_STATUS, errors } from '../http/errors.ts';
import { ingestEvents, type IngestDeps, type IngestScope } from '../ingest/ingest-service.ts';
import { MAX_BATCH_EVENTS } from '../protocol/limits.ts';
import { workSlicer, type Pause } from '../runtime/work-slices.ts';
import { isJourneyRecord, linkParents, mapRecord, type MappedEvent } from './mapping.ts';
import type { PartialSuccess } from './otlp-proto.ts';
import type { OtlpRecord } from './records.ts';

export interface ExportOutcome {
  accepted: number;
  duplicate: number;
  rejected: number;
  skipped: number;
  /** The refusal codes of rejected records, first seen first, each once. */
  refusalCodes: string[];
}

/** How many refusal codes the partialSuccess message names. */
const NAMED_REFUSAL_CODES = 3;

/** OTLP/HTTP asks for 503 on a transient failure: the exporter then retries the whole export. */
export function unavailable(): AppError {
  return errors.databaseUnavailable();
}

/**
 * Journey records go through the ingestion pipeline in groups of a batch's size, so a large
 * export never holds one long transaction. A record the store could not write (a 5xx verdict)
 * fails the whole export with 503: the retry is safe because every event id is stable.
 */
export async function exportRecords(deps: IngestDeps, scope: IngestScope, records: OtlpRecord[], pause: Pause = workSlicer()): Promise<ExportOutcome> {
  const journeyRecords = records.filter(isJourneyRecord);
  const outcome: ExportOutcome = { accepted: 0, duplicate: 0, rejected: 0, skipped: records.length - journeyRecords.length, refusalCodes: [] };
  // Mapped a record at a time with pauses: 10,000 records in one go held the event loop.
  const mapped: MappedEvent[] = [];
  for (const record of journeyRecords) {
    mapped.push(mapRecord(record, scope.environment.name));
    await pause();
  }
  linkParents(journeyRecords, mapped);
  const envelopes = mapped.map((event) => event.envelope);
  for (let start = 0; start < envelopes.length; start += MAX_BATCH_EVENTS) {
    await pause();
    const results = await ingestEvents(deps, scope, envelopes.slice(start, start + MAX_BATCH_EVENTS), 'batch');
    for (const result of results) {
      if (result.status === 'accepted') {
        if (result.duplicate) outcome.duplicate++;
        else outcome.accepted++;
        continue;
      }
      if (ERROR_STATUS[result.error.code] >= 500) {
        throw result.error.code === 'query_timeout' ? errors.queryTimeout() : unavailable();
      }
      outcome.rejected++;
      if (!outcome.refusalCodes.includes(result.error.code)) outcome.refusalCodes.push(result.error.code);
    }
  }
  return outcome;
}

/** OTLP's partialSuccess: the rejected count and a message naming the first refusal codes. */
export function partialSuccess(outcome: ExportOutcome): PartialSuccess | null {
  if (outcome.rejected === 0) return null;
  const codes = outcome.refusalCodes.slice(0, NAMED_REFUSAL_CODES).join(', ');
  return {
    rejected: outcome.rejected,
    errorMessage: `${outcome.rejected} record(s) refused: ${codes}`,
  };
}
