ALTER TABLE t SET TBLPROPERTIES('delta.minReaderVersion' = '1', 'delta.minWriterVersion' = '3');
