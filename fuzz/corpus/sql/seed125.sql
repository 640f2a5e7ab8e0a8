CREATE TABLE events USING DELTA LOCATION '/data-pipeline/';
