ALTER TABLE t SET TBLPROPERTIES('delta.enableDeletionVectors' = true);
