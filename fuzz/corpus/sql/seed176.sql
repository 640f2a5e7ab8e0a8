SELECT * FROM VALUES (1, 2) AS v(a, b);
