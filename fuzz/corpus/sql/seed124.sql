CONVERT TO DELTA parquet.`/data-pipeline/`;
