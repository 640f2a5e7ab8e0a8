CONVERT TO DELTA parquet.`` NO STATISTICS PARTITIONED BY (part int, part2 int);
