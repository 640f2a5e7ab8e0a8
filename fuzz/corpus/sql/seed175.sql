VALUES (1, 'a'), (2, 'b');
