DESCRIBE DETAIL default.people10m;
