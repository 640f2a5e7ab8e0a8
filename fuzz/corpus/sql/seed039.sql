SELECT * FROM table_changes('tableName', 0, 10);
