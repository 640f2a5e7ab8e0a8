SELECT * FROM delta.`/tmp/delta-table` VERSION AS OF 0;
