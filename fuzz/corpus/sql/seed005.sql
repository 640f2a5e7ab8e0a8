CREATE TABLE default.people10m USING DELTA LOCATION '/tmp/delta/people10m';
