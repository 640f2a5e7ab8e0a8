SELECT _metadata.row_id, _metadata.row_commit_version, * FROM table_name;
