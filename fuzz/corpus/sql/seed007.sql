SELECT * FROM default.people10m;
