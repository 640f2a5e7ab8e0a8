CREATE TABLE table1(col0 int, col1 string) USING DELTA CLUSTER BY (col0);
