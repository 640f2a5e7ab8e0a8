DELETE FROM people10m WHERE birthDate < '1955-01-01';
