SELECT a, b AS x, t.*, count(DISTINCT c) cnt FROM delta.`/tmp/t` AS t LEFT JOIN u ON t.id = u.id WHERE a > 1 GROUP BY 1, b HAVING count(*) > 2 ORDER BY a DESC NULLS LAST LIMIT 10 OFFSET 5;
