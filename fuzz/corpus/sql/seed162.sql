CONVERT TO DELTA iceberg.`/data/iceberg_table` NO STATISTICS;
