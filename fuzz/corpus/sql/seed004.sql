SELECT COUNT(*) > 0 AS `Partition exists` FROM default.people10m WHERE gender = "M";
