SHOW TBLPROPERTIES default.people10m;
