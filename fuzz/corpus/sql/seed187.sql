INSERT INTO t (a, b) VALUES (1, 2);
