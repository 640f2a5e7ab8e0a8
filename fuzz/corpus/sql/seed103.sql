CONVERT TO DELTA parquet.``;
