SELECT * FROM table_changes('mytable', 0);
