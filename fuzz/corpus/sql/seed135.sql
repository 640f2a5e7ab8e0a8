SELECT * FROM delta.`/tmp/delta-table`;
