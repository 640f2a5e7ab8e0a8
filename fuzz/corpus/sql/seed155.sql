CREATE TABLE t USING DELTA TBLPROPERTIES('delta.enableTypeWidening' = 'true');
