-- How common each trigram of labels and displayable alias values is. The journey list's q is
-- found through the trigram indexes (0002), whose GIN scan reads the whole posting list of every
-- trigram of q: a q sharing a trigram with nearly every value (the "use" of e-mails that all
-- begin "user") reads that list whole, a cost that grows with the table (about 100 ms at ten
-- million aliases). With these statistics the list probes the index with the longest part of q
-- made of uncommon trigrams only, and tests q itself on the rows found
-- (src/query/rare-substring.ts). ANALYZE keeps them, as it keeps every table's statistics; the
-- elements are show_trgm's, exactly the trigrams pg_trgm indexes.
CREATE STATISTICS journeys_label_trigrams ON (show_trgm(label)) FROM journeys;
CREATE STATISTICS journey_aliases_display_trigrams ON (show_trgm(display_value)) FROM journey_aliases;
-- Gathered now where there is something to gather. A table analyzed while (nearly) empty keeps
-- the foreign-key checks into it planned as for an empty table until the next analysis
-- (src/ingest/statistics-warmup.ts), so a new database is left to ingestion's own warm-up.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM journeys OFFSET 99) THEN
    ANALYZE journeys;
  END IF;
  IF EXISTS (SELECT 1 FROM journey_aliases OFFSET 99) THEN
    ANALYZE journey_aliases;
  END IF;
END
$$;
