CREATE TABLE events USING PARQUET OPTIONS (path '/data-pipeline/');
