ALTER TABLE grade SET TBLPROPERTIES ('delta.enableRowTracking' = 'true');
