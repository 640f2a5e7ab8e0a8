SELECT * FROM delta.`/tmp/delta/people10m` VERSION AS OF 123;
