ALTER TABLE t DROP FEATURE deletionVectors;
