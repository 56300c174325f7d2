// Search and the journey list (interface spec 4): both answer a keyset page of journey
// summaries in the order lastEventAt desc, journeyId desc, within the caller's scope.

import type { ReadScope } from '../auth/credentials.ts';
import { decryptField } from '../crypto/field-encryption.ts';
import type { Keyring } from '../crypto/keyring.ts';
import { looseLookups } from '../crypto/loose-tokens.ts';
import { searchTokensForLookup } from '../crypto/search-tokens.ts';
import type { Queryable } from '../db/pool.ts';
import { formatTimestamp } from '../protocol/timestamps.ts';
import { findEnvironment } from '../projects/environments-sql.ts';
import { NO_COMMON_TRIGRAMS, type CommonTrigramSource, type CommonTrigrams } from './common-trigrams.ts';
import { encodeJourneyCursor } from './cursor.ts';
import { selectJourneyList, selectSearchPage, type JourneyScan, type SummaryPage, type SummaryRecord } from './journeys-sql.ts';
import { keysetPage, type Page } from './page.ts';
import type { JourneyPageParams, ListParams, SearchParams } from './params.ts';

export interface ReadDeps {
  db: Queryable;
  keyring: Keyring;
  /** Which trigrams are common among labels and alias values (src/query/common-trigrams.ts); none without it. */
  commonTrigrams?: CommonTrigramSource;
}

/** What the text filter needs to know of the data: only a q the trigram indexes serve asks. */
export async function commonTrigramsFor(deps: ReadDeps, text: string | null): Promise<CommonTrigrams> {
  if (text === null || deps.commonTrigrams === undefined || [...text].length < 3) return NO_COMMON_TRIGRAMS;
  return deps.commonTrigrams.current();
}

/** Interface spec section 2, "Journey summary": these eleven fields, in this order. */
export interface JourneySummary {
  journeyId: string;
  entity: { type: string; id: string | null };
  status: string;
  eventCount: number;
  startedAt: string;
  lastEventAt: string;
  label: string | null;
  lastStep: string | null;
  failedStep: string | null;
  displayableAliases: Array<{ type: string; value: string }>;
  environment: string;
  /** Additive to the spec's eleven fields: the journey's first findings (docs/findings.md). */
  findings: SummaryRecord['findings'];
}

const EMPTY_PAGE: Page<never> = Object.freeze({ items: [], nextCursor: null }) as Page<never>;

function toSummary(keyring: Keyring, row: SummaryRecord): JourneySummary {
  return {
    journeyId: row.id,
    // null when the key that encrypted it is no longer configured, as in the journey read.
    entity: { type: row.entity_type, id: decryptField(keyring, row.entity_id_encrypted) },
    status: row.status,
    eventCount: row.event_count,
    startedAt: formatTimestamp(row.started_at.getTime()),
    lastEventAt: formatTimestamp(row.last_event_at.getTime()),
    label: row.label,
    lastStep: row.last_step,
    failedStep: row.failed_step,
    displayableAliases: row.aliases,
    environment: row.environment,
    findings: row.findings,
  };
}

/** Rows hold one more than the page when another page follows; its cursor is the last item's position. */
function toPage(keyring: Keyring, rows: SummaryRecord[], limit: number): Page<JourneySummary> {
  return keysetPage(
    rows,
    limit,
    (row) => toSummary(keyring, row),
    (last) => encodeJourneyCursor({ lastEventUs: BigInt(last.last_event_us), journeyId: last.id }),
  );
}

/**
 * The environment filter on top of the caller's scope (interface spec 4, search rule 3): an API
 * key reads its own environment, and naming another gives an empty page; the admin token picks
 * one environment of the project, and an unknown name gives an empty page too. undefined means
 * "nothing can match".
 */
async function environmentFilter(db: Queryable, scope: ReadScope, name: string | null): Promise<string | null | undefined> {
  if (scope.environmentId !== null) {
    return name === null || name === scope.environmentName ? scope.environmentId : undefined;
  }
  if (name === null) return null;
  return (await findEnvironment(db, scope.projectId, name))?.id ?? undefined;
}

export async function baseScan(deps: ReadDeps, scope: ReadScope, params: JourneyPageParams): Promise<JourneyScan | null> {
  const environmentId = await environmentFilter(deps.db, scope, params.environment);
  if (environmentId === undefined) return null;
  return {
    projectId: scope.projectId,
    environmentId,
    sinceUs: params.sinceUs,
    untilUs: params.untilUs,
    status: null,
    service: null,
    entityType: null,
    finding: null,
    after: params.after,
    take: params.limit + 1,
  };
}

/**
 * Runs a page's statement. A scope whose API key this instance verified in memory has the
 * statement confirm the key's row as well (one round trip for both); when the row no longer
 * stands as verified, the full credential check decides (401, or a fresh scope to read again with).
 */
async function readPage(
  deps: ReadDeps,
  scope: ReadScope,
  scanOf: (scope: ReadScope) => Promise<JourneyScan | null>,
  select: (scan: JourneyScan) => Promise<SummaryPage>,
  limit: number,
): Promise<Page<JourneySummary>> {
  const unconfirmed = scope.unconfirmed;
  const scan = await scanOf(scope);
  if (scan === null) {
    // Nothing to read, yet the key must still stand (a revoked key is 401 whatever it asks for).
    if (unconfirmed) await unconfirmed.check();
    return EMPTY_PAGE;
  }
  const page = await select(unconfirmed ? { ...scan, standing: unconfirmed.standing } : scan);
  if (unconfirmed && page.standing?.ok !== true) return readPage(deps, await unconfirmed.check(), scanOf, select, limit);
  if (unconfirmed) await unconfirmed.confirmed(page.standing!.recentlyUsed);
  return toPage(deps.keyring, page.rows, limit);
}

/** GET /v1/search: one value against every identifier search tokens cover. */
export async function searchJourneys(deps: ReadDeps, scope: ReadScope, params: SearchParams): Promise<Page<JourneySummary>> {
  const tokens = searchTokensForLookup(deps.keyring, params.value).map((token) => token.token);
  // Loose matching finds what exact matching finds and, beside it, the value's normal forms.
  const looseTokens = params.loose ? looseLookups(deps.keyring, params.value).flatMap((lookup) => lookup.tokens) : [];
  return readPage(deps, scope, (s) => baseScan(deps, s, params), (scan) => selectSearchPage(deps.db, scan, tokens, looseTokens), params.limit);
}

/** GET /v1/journeys: journeys by lastEventAt window and filters. */
export async function listJourneys(deps: ReadDeps, scope: ReadScope, params: ListParams): Promise<Page<JourneySummary>> {
  const scanOf = async (s: ReadScope): Promise<JourneyScan | null> => {
    const base = await baseScan(deps, s, params);
    return base && { ...base, status: params.status, service: params.service, entityType: params.entityType, finding: params.finding };
  };
  const common = await commonTrigramsFor(deps, params.text);
  return readPage(deps, scope, scanOf, (scan) => selectJourneyList(deps.db, scan, params.text, common), params.limit);
}
