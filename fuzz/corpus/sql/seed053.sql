ALTER TABLE default.people10m DROP CONSTRAINT dateWithinRange;
