UPDATE t SET a = a + 1, b = 'x' WHERE c IS NULL;
