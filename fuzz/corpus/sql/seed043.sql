SELECT * FROM table_changes_by_path('\path', '2021-04-21 05:45:46');
