SELECT * FROM delta.`/p/t@v7`;
