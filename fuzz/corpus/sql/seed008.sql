SELECT * FROM delta.`/tmp/delta/people10m`;
