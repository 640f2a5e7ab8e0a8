SELECT * FROM table_changes('tbl', 0, 10);
