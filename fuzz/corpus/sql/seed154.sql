ALTER TABLE t SET TBLPROPERTIES ('delta.enableTypeWidening' = 'true');
