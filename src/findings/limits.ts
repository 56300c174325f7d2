// Limits of the findings capability, each with its unit and reason.

/** Findings stored per journey: a journey that lost a thousand fields is told by its first hundred. */
export const MAX_FINDINGS_PER_JOURNEY = 100;
/**
 * Journeys the analyzer takes per transaction while catching up: 100 cost 12 % less CPU per
 * journey than 50 (statements per batch), and 200 only 8 % less again while holding twice the
 * journeys' locks and events at once (docs/benchmarks.md, Findings). At most 4,000: the storing
 * statement sends 16 parameters per journey, and PostgreSQL takes 65,535.
 */
export const ANALYZER_BATCH_SIZE = 100;
/**
 * Events the analyzer walks per journey per batch: a journey fed faster, or walked again from its
 * first event, is taken up again behind the other marked journeys, so a huge journey never holds
 * up the others (docs/findings.md, "Incremental analysis"). A batch then holds at most
 * 100 x 2,000 events in memory.
 */
export const ANALYZER_JOURNEY_EVENTS = 2_000;
/** Milliseconds between two analyzer passes when nothing is pending. */
export const ANALYZER_IDLE_MS = 500;
/** Milliseconds between two attempts to take the analyzer lock by an instance that does not hold it. */
export const ANALYZER_LOCK_RETRY_MS = 2_000;
/** Steps an expectation lists. */
export const MAX_EXPECTATION_STEPS = 100;
/** Code points of a step name or an entity type in an expectation (event protocol: names are short). */
export const MAX_EXPECTATION_NAME = 128;
/** Completed journeys a suggestion reads at most. */
export const MAX_SUGGESTION_JOURNEYS = 1_000;
/** Paths the findings summary lists as top lost fields. */
export const MAX_SUMMARY_PATHS = 20;
