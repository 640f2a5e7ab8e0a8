DESC t;
