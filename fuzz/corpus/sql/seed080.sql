DELETE FROM delta.`/tmp/delta/people-10m` WHERE birthDate < '1955-01-01';
