DELETE FROM delta.`/tmp/delta-table` WHERE id % 2 == 0;
