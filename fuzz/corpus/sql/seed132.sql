UPDATE delta.`/tmp/delta-table` SET id = id + 100 WHERE id % 2 == 0;
