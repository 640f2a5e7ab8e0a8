ALTER TABLE table_name REPLACE COLUMNS (col_name1 INT COMMENT 'col_comment1', col_name2 STRING);
