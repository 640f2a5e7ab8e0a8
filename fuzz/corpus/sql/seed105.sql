CONVERT TO DELTA parquet.`` PARTITIONED BY (part int, part2 int);
