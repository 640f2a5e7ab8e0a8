ALTER TABLE table_name SET TBLPROPERTIES (delta.enableRowTracking = false);
