ALTER TABLE table_name ALTER COLUMN col_name col_name BIGINT COMMENT 'col_comment' AFTER colA_name;
