-- The journey list's q of two characters (interface-spec: q is 2 to 200 code points). A trigram
-- index cannot answer it (a trigram is three characters), and without an index a rare pair of
-- characters meant reading every journey of the window (0.3 s at a million journeys). Here each
-- label and displayable alias value also gets the set of its two-character substrings, lowered
-- as the list compares them, under a GIN index: a q of two characters is one probe of it, and
-- the LIKE of the list still decides (jtrace_bigrams(x) @> jtrace_bigrams(q) is only what every
-- match has in common, src/query/journeys-sql.ts).

-- PL/pgSQL: about 13 µs for a label of 30 characters, against 45 µs for the same in one SQL
-- statement (generate_series and array_agg); it runs on every journey write. Repeated pairs
-- stay in the array: GIN stores each key once.
CREATE FUNCTION jtrace_bigrams(value text) RETURNS text[]
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  lowered text := lower(value);
  pairs text[] := '{}';
BEGIN
  FOR i IN 1 .. length(lowered) - 1 LOOP
    pairs := pairs || substr(lowered, i, 2);
  END LOOP;
  RETURN pairs;
END
$$;

CREATE INDEX journeys_label_bigrams ON journeys USING gin (jtrace_bigrams(label));
CREATE INDEX journey_aliases_display_bigrams ON journey_aliases USING gin (jtrace_bigrams(display_value));
-- As for the trigram indexes (0002): statistics of the expression let the planner tell a rare
-- pair from a common one, walking the keyset index for the common.
ALTER INDEX journeys_label_bigrams ALTER COLUMN 1 SET STATISTICS 1000;
ALTER INDEX journey_aliases_display_bigrams ALTER COLUMN 1 SET STATISTICS 1000;
