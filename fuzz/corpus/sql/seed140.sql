ALTER TABLE table_name ADD COLUMNS (col_name INT COMMENT 'col_comment' FIRST, c2 STRING AFTER colA_name);
