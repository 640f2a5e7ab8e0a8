SHOW TBLPROPERTIES t ('delta.appendOnly');
