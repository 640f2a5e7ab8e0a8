-- The planner's comparison corpus: every query runs in DuckDB and through
-- the planner over the same data (tests/unit/sql/test_plan_corpus.c), and
-- the results must agree as sorted row sets, or in order where the query
-- has a top-level ORDER BY (those order totally, so both engines agree).
-- Tables: t(id int, g int, s string, x double, dec decimal(10,2), dt date,
-- ts timestamp_ntz), 3000 rows with NULLs in every column but id;
-- u(k int, name string, w int), 40 rows, NULL keys, keys 15..19 unmatched;
-- e, empty, with u's columns. One query per entry, each ending with ';'
-- at the end of a line; lines starting with -- are comments. Queries are
-- written in the SQL both engines read alike (NULLS FIRST/LAST spelled
-- out: DuckDB's defaults differ from Spark's).

-- joins of every kind, with NULL keys
SELECT t.id, u.name FROM t JOIN u ON t.g = u.k;
SELECT t.id, u.name, u.w FROM t LEFT JOIN u ON t.g = u.k;
SELECT t.id, u.k, u.name FROM t RIGHT JOIN u ON t.g = u.k;
SELECT t.id, t.g, u.k FROM t FULL OUTER JOIN u ON t.g = u.k;
SELECT t.id, t.g FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.g);
SELECT t.id, t.g FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.g);
SELECT t.id, u.name FROM t JOIN u ON t.g IS NOT DISTINCT FROM u.k;
SELECT t.id, u.name FROM t JOIN u ON t.g = u.k AND u.w > t.id % 60;
SELECT t.id, u.k, u.w FROM t FULL JOIN u ON t.g = u.k AND u.w < t.id % 50 AND u.name <> t.s;
SELECT count(*), sum(t.id * u.w) FROM t CROSS JOIN u WHERE t.id < 100;
SELECT t.id, u.name FROM t, u WHERE t.g = u.k AND u.w < 20;
SELECT a.k, a.w, b.k FROM u a JOIN u b ON a.k = b.w;
SELECT k, a.name, b.w FROM u a JOIN u b USING (k);
SELECT t.id, a.name, b.name FROM t JOIN u a ON t.g = a.k LEFT JOIN u b ON a.w = b.w AND b.k IS NOT NULL WHERE t.id < 300;
SELECT t.id, u.k FROM t JOIN u ON t.g + 1 = u.k WHERE t.id < 500;
SELECT t.id, u.k FROM t JOIN u ON t.dec = u.w;
SELECT t.id, u.name FROM u RIGHT JOIN t ON t.g = u.k WHERE t.id < 200;
SELECT u.k, count(t.id) FROM u LEFT JOIN t ON t.g = u.k AND t.x > 0 GROUP BY u.k;

-- aggregates
SELECT g, count(*), count(x), sum(x), min(s), max(s), sum(dec), min(dt), max(ts) FROM t GROUP BY g;
SELECT g, avg(x), avg(dec), avg(id) FROM t GROUP BY g;
SELECT count(*), count(DISTINCT s), count(DISTINCT g), count(DISTINCT dt) FROM t;
SELECT s, dt IS NULL, count(*) FROM t GROUP BY s, dt IS NULL HAVING count(*) > 20;
SELECT g % 3 AS m, sum(id) FROM t GROUP BY 1;
SELECT g, sum(x) + 1, CASE WHEN max(x) > 90 THEN 'hi' ELSE 'lo' END FROM t GROUP BY g;
SELECT count(*), sum(x), min(s), avg(dec) FROM t WHERE x > 1000;
SELECT g, count(*) FROM t WHERE x > 1000 GROUP BY g;
SELECT stddev_samp(x), var_pop(x), var_samp(dec), stddev_pop(id) FROM t;
SELECT g, stddev(dec), variance(id) FROM t GROUP BY g;
SELECT year(dt), count(*) FROM t GROUP BY year(dt);
SELECT min(dec), max(dec), sum(dec), count(dec) FROM t WHERE dec < 0;
SELECT name, count(*), count(k), max(w) FROM u GROUP BY name;
SELECT u.name, count(t.id), sum(t.dec) FROM u LEFT JOIN t ON t.g = u.k GROUP BY u.name;
SELECT g, max(x) - min(x) AS spread FROM t GROUP BY g HAVING max(x) - min(x) > 150;
SELECT s, count(*) FROM t GROUP BY s HAVING s IS NOT NULL AND count(*) > 100;

-- NULLs and three-valued logic
SELECT id FROM t WHERE g = NULL;
SELECT count(*) FROM t WHERE NOT (x > 0);
SELECT count(*) FROM t WHERE x > 0 OR g IS NULL;
SELECT id, g IS NULL OR x > 0 AS a, g > 3 AND x < 0 AS b FROM t WHERE id < 50;
SELECT coalesce(g, -1), count(*) FROM t GROUP BY coalesce(g, -1);
SELECT id, nullif(g, 3), CASE WHEN g IS NULL THEN 'none' WHEN g < 5 THEN 'low' ELSE 'high' END FROM t WHERE id < 100;
SELECT id FROM t WHERE g IN (1, 2, NULL);
SELECT count(*) FROM t WHERE g NOT IN (1, 2, NULL);
SELECT count(*) FROM t WHERE g NOT IN (1, 2);
SELECT count(*) FROM t WHERE s BETWEEN 'a' AND 'b';
SELECT count(*), count(g), sum(CASE WHEN g IS NULL THEN 1 ELSE 0 END) FROM t;

-- decimals, dates, timestamps
SELECT id, dec * 2, dec + 1.5, -dec FROM t WHERE dec > 900;
SELECT dec, count(*) FROM t WHERE dec BETWEEN -5 AND 5 GROUP BY dec;
SELECT dt, count(*) FROM t WHERE dt >= DATE '2022-01-01' AND dt < DATE '2022-03-01' GROUP BY dt;
SELECT id, month(dt), day(dt) FROM t WHERE dt IS NOT NULL AND id < 200;
SELECT max(ts), min(ts), count(ts) FROM t WHERE ts > '2024-06-01';
SELECT hour(ts), count(*) FROM t GROUP BY hour(ts);
SELECT dt FROM t ORDER BY dt DESC NULLS LAST, id LIMIT 10;
SELECT ts FROM t WHERE ts IS NOT NULL ORDER BY ts, id LIMIT 15;

-- empty inputs
SELECT k, name, w FROM e;
SELECT count(*), max(w), sum(k) FROM e;
SELECT t.id FROM t JOIN e ON t.g = e.k;
SELECT t.id, e.k FROM t LEFT JOIN e ON t.g = e.k WHERE t.id < 10;
SELECT k FROM e UNION SELECT k FROM u WHERE k < 3;
SELECT id FROM t WHERE g IN (SELECT k FROM e);
SELECT count(*) FROM t WHERE g NOT IN (SELECT k FROM e);
SELECT e.k, count(*) FROM e GROUP BY e.k;

-- set operations
SELECT g, s FROM t UNION SELECT k, name FROM u;
SELECT g FROM t INTERSECT SELECT k FROM u;
SELECT g, s FROM t EXCEPT SELECT k, name FROM u;
SELECT k FROM u UNION ALL SELECT g FROM t WHERE id < 20;
SELECT g FROM t INTERSECT ALL SELECT k FROM u;
SELECT g FROM t EXCEPT ALL SELECT k FROM u;
SELECT k FROM u UNION SELECT g FROM t ORDER BY k NULLS FIRST LIMIT 5;
SELECT w FROM u UNION ALL SELECT x FROM t WHERE id < 5;
SELECT s FROM t WHERE id < 100 INTERSECT SELECT name FROM u;

-- subqueries
SELECT id FROM t WHERE x > (SELECT avg(x) FROM t) AND id < 200;
SELECT id, (SELECT max(w) FROM u) FROM t WHERE id < 5;
SELECT id FROM t WHERE g IN (SELECT k FROM u WHERE w > 30);
SELECT count(*) FROM t WHERE g NOT IN (SELECT k FROM u WHERE k IS NOT NULL);
SELECT count(*) FROM t WHERE g NOT IN (SELECT k FROM u);
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.g AND u.w > 40);
SELECT id, (SELECT count(*) FROM u WHERE u.k = t.g) FROM t WHERE id < 100;
SELECT id, (SELECT max(w) FROM u WHERE u.k = t.g) FROM t WHERE id < 100;
SELECT id FROM t WHERE s IN (SELECT name FROM u WHERE u.k = t.g);
SELECT id FROM t WHERE g NOT IN (SELECT k FROM u WHERE u.name = t.s);
SELECT id FROM t WHERE x < (SELECT avg(w) FROM u WHERE u.k = t.g);
WITH a AS (SELECT g, count(*) c FROM t GROUP BY g), b AS (SELECT * FROM a WHERE c > 150) SELECT b.g, b.c, u.name FROM b JOIN u ON b.g = u.k;
SELECT m, count(*) FROM (SELECT id % 7 AS m FROM t) x GROUP BY m;

-- order and limit
SELECT id, x FROM t ORDER BY x DESC NULLS LAST, id LIMIT 20 OFFSET 5;
SELECT id FROM t ORDER BY s NULLS FIRST, id DESC LIMIT 30;
SELECT s, count(*) AS c FROM t GROUP BY s ORDER BY c DESC, s NULLS FIRST;
SELECT id FROM t ORDER BY g NULLS LAST, dec DESC NULLS FIRST, id LIMIT 50;
SELECT DISTINCT g FROM t ORDER BY g NULLS FIRST;
SELECT id, s FROM t WHERE id < 10 ORDER BY upper(s) NULLS LAST, id;
SELECT id FROM t ORDER BY id LIMIT 5 OFFSET 2990;

-- strings, VALUES, no FROM
SELECT s, length(s), upper(s), s || '!' FROM t WHERE id < 60;
SELECT count(*) FROM t WHERE s LIKE 'a%';
SELECT DISTINCT substring(s, 1, 1) FROM t;
SELECT * FROM (VALUES (1, 'a'), (2, 'b'), (3, NULL)) AS v(a, b) WHERE a > 1;
SELECT 1 + 1, 'x', NULL IS NULL;

-- window functions
SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY id) FROM t;
SELECT id, rank() OVER (PARTITION BY g ORDER BY s NULLS FIRST), dense_rank() OVER (PARTITION BY g ORDER BY s NULLS FIRST) FROM t;
SELECT id, sum(x) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN 2 PRECEDING AND 1 FOLLOWING) FROM t;
SELECT id, lag(x, 2) OVER (PARTITION BY g ORDER BY id), lead(s) OVER (ORDER BY id) FROM t;
SELECT id, count(*) OVER (PARTITION BY s), avg(x) OVER (PARTITION BY g) FROM t;
SELECT id, sum(dec) OVER (ORDER BY dt NULLS FIRST, id) FROM t;
SELECT g, sum(x), rank() OVER (ORDER BY sum(x) DESC NULLS LAST) FROM t GROUP BY g;
SELECT id, ntile(4) OVER (ORDER BY id), percent_rank() OVER (ORDER BY g NULLS FIRST), cume_dist() OVER (ORDER BY g NULLS FIRST) FROM t WHERE id < 100;
SELECT id, first_value(x) OVER (PARTITION BY g ORDER BY id), last_value(x) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM t;
SELECT id, count(*) OVER (ORDER BY x NULLS FIRST RANGE BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t;
SELECT id, g, rn FROM (SELECT id, g, row_number() OVER (PARTITION BY g ORDER BY x DESC NULLS LAST, id) AS rn FROM t) z WHERE rn <= 3;
SELECT id, max(w) OVER (PARTITION BY k ORDER BY w, name NULLS FIRST) FROM (SELECT 1 AS id, k, w, name FROM u) v;

-- more aggregate kinds
SELECT g, count_if(x > 0), bool_and(x > -50), bool_or(s = 'a') FROM t GROUP BY g;
SELECT k, sum(DISTINCT w), avg(DISTINCT w), count(DISTINCT name) FROM u GROUP BY k;

-- combinations
WITH g AS (SELECT g, count(*) AS n, sum(x) AS sx FROM t GROUP BY g), r AS (SELECT g, n, rank() OVER (ORDER BY n DESC, g NULLS FIRST) AS rk FROM g) SELECT r.g, r.n, r.rk, u.name FROM r LEFT JOIN u ON r.g = u.k WHERE r.rk <= 5;
SELECT a.k, a.name, b.name FROM u a FULL JOIN u b USING (k) WHERE a.w > 10 OR b.w < 5;
SELECT k, coalesce(a.name, b.name) FROM (SELECT k, name FROM u WHERE w < 30) a FULL JOIN (SELECT k, name FROM u WHERE w >= 30) b USING (k);
SELECT s, count(*) FROM t WHERE g IN (SELECT k FROM u WHERE name IN (SELECT s FROM t WHERE id < 100)) GROUP BY s;
SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.g AND EXISTS (SELECT 1 FROM u u2 WHERE u2.w = u.w AND u2.name IS NOT NULL));
SELECT g, count(*) FROM t GROUP BY g HAVING count(*) > (SELECT count(*) / 20 FROM t);
SELECT x.a, x.b FROM (SELECT g AS a, max(id) AS b FROM t GROUP BY g) AS x (a, b) WHERE x.b > 2900;
SELECT id, x FROM t WHERE x = (SELECT max(x) FROM t) ORDER BY id;
SELECT t.id, u.name, d.c FROM t JOIN u ON t.g = u.k JOIN (SELECT k, count(*) AS c FROM u GROUP BY k) d ON d.k = u.k WHERE t.id < 400;
SELECT count(*) FROM t a JOIN t b ON a.id = b.id + 1 AND a.g = b.g;
SELECT g, sum(CASE WHEN s = 'a' THEN 1 ELSE 0 END), sum(CASE WHEN x > 0 THEN x END) FROM t GROUP BY g;
SELECT DISTINCT g, s FROM t WHERE id < 300;
SELECT s, max(id) - min(id) FROM t GROUP BY s ORDER BY 2 DESC, 1 NULLS FIRST;
SELECT id, g, sum(x) OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - x FROM t WHERE id < 500;
SELECT u.name, (SELECT count(*) FROM t WHERE t.g = u.k AND t.x > 0) FROM u;
SELECT id FROM t WHERE g NOT IN (SELECT k FROM u WHERE k IS NOT NULL AND w > 20) AND s IS NOT NULL;

-- grouping analytics: ROLLUP, CUBE, GROUPING SETS (Spark's Expand), with
-- NULL keys in the data beside the rolled-up NULLs, grouping(), HAVING
SELECT g, s, count(*), sum(x) FROM t GROUP BY ROLLUP(g, s);
SELECT g, s, count(*), grouping(g), grouping(s) FROM t WHERE id < 1500 GROUP BY CUBE(g, s);
SELECT g, dt IS NULL, sum(id) FROM t GROUP BY GROUPING SETS ((g), (dt IS NULL), ());
SELECT g, s, max(id) FROM t GROUP BY g, ROLLUP(s);
SELECT g, count(DISTINCT s), avg(dec) FROM t GROUP BY ROLLUP(g) HAVING grouping(g) = 1 OR count(*) > 150;
SELECT g % 3 AS m, s, min(dt), max(ts) FROM t GROUP BY GROUPING SETS ((g % 3, s), (s)) ORDER BY 2 NULLS FIRST, 1 NULLS FIRST, 3 NULLS FIRST, 4 NULLS FIRST;
SELECT grouping(g) + grouping(s) AS lvl, count(*) FROM t GROUP BY CUBE(g, s) HAVING count(*) > 100;
