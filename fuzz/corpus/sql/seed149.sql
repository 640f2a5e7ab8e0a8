ALTER TABLE t RENAME COLUMN old_col_name TO new_col_name;
