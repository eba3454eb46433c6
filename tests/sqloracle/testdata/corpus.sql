-- The corpus of the stream SQL oracle (oracle_test.go). Each query starts
-- with "-- name:", names the columns of the table it writes with "-- sink:"
-- and is an INSERT INTO out SELECT over the table
--
--   bids (auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR,
--         ts BIGINT) WITH (watermark = 'ts - 1s')
--
-- (price and channel are sometimes NULL). DuckDB runs the SELECT, or the
-- query after "-- duckdb:" where its dialect differs: there a window is a
-- GROUP BY on its start, computed from ts, and HOP a join with range().

-- name: project-all
-- sink: auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, ts BIGINT
INSERT INTO out SELECT * FROM bids;

-- name: filter-price
-- sink: auction BIGINT, price BIGINT
INSERT INTO out SELECT auction, price FROM bids WHERE price > 500;

-- name: filter-and-or-null
-- sink: bidder BIGINT, channel VARCHAR
INSERT INTO out SELECT bidder, channel FROM bids WHERE (channel = 'apple' OR price IS NULL) AND NOT bidder > 40;

-- name: filter-in-between
-- sink: auction BIGINT, bidder BIGINT
INSERT INTO out SELECT auction, bidder FROM bids WHERE auction IN (1, 3, 5) AND price BETWEEN 100 AND 300;

-- name: arithmetic
-- sink: a BIGINT, b BIGINT, c DOUBLE, d BIGINT, e BIGINT
INSERT INTO out SELECT auction * 1000 + bidder, price - 500, price * 0.908, price / 7, price % 7 FROM bids;
-- duckdb:
SELECT auction * 1000 + bidder, price - 500, price * 0.908, price // 7, price % 7 FROM bids;

-- name: case-when
-- sink: auction BIGINT, band VARCHAR
INSERT INTO out SELECT auction, CASE WHEN price IS NULL THEN 'none' WHEN price < 100 THEN 'low' WHEN price < 700 THEN 'mid' ELSE 'high' END FROM bids;

-- name: case-simple-no-else
-- sink: bidder BIGINT, c BIGINT
INSERT INTO out SELECT bidder, CASE channel WHEN 'apple' THEN 1 WHEN 'google' THEN 2 END FROM bids;

-- name: cast
-- sink: a VARCHAR, b DOUBLE, c BIGINT, d BIGINT
INSERT INTO out SELECT CAST(auction AS VARCHAR), CAST(price AS DOUBLE) / 3, CAST(price * 0.5 AS BIGINT), CAST('42' AS BIGINT) FROM bids;

-- name: string-functions
-- sink: u VARCHAR, l BIGINT, s VARCHAR, c VARCHAR
INSERT INTO out SELECT UPPER(channel), CHAR_LENGTH(channel), SUBSTRING(channel, 2, 3), channel || '-' || CAST(bidder AS VARCHAR) FROM bids WHERE channel IS NOT NULL;

-- name: math-functions
-- sink: a BIGINT, b DOUBLE, c BIGINT, d BIGINT
INSERT INTO out SELECT ABS(price - 500), ROUND(price / 3.0, 2), MOD(price, 10), COALESCE(price, -1) FROM bids;

-- name: tumble-count
-- sink: auction BIGINT, ws BIGINT, we BIGINT, n BIGINT
INSERT INTO out SELECT auction, TUMBLE_START(ts, INTERVAL '10' SECOND), TUMBLE_END(ts, INTERVAL '10' SECOND), COUNT(*)
FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '10' SECOND);
-- duckdb:
SELECT auction, ts // 10000 * 10000 AS ws, ts // 10000 * 10000 + 10000, COUNT(*) FROM bids GROUP BY auction, ws;

-- name: tumble-every-aggregate
-- sink: channel VARCHAR, ws BIGINT, n BIGINT, np BIGINT, total BIGINT, lo BIGINT, hi BIGINT, mean DOUBLE
INSERT INTO out SELECT channel, window_start, COUNT(*), COUNT(price), SUM(price), MIN(price), MAX(price), AVG(price)
FROM bids GROUP BY channel, TUMBLE(ts, INTERVAL '5' SECOND);
-- duckdb:
SELECT channel, ts // 5000 * 5000 AS ws, COUNT(*), COUNT(price), SUM(price), MIN(price), MAX(price), AVG(price) FROM bids GROUP BY channel, ws;

-- name: tumble-global-where-having
-- sink: ws BIGINT, n BIGINT, total BIGINT
INSERT INTO out SELECT window_start, COUNT(*), SUM(price) FROM bids WHERE channel <> 'baidu'
GROUP BY TUMBLE(ts, INTERVAL '2' SECOND) HAVING SUM(price) > 20000;
-- duckdb:
SELECT ts // 2000 * 2000 AS ws, COUNT(*), SUM(price) FROM bids WHERE channel <> 'baidu' GROUP BY ws HAVING SUM(price) > 20000;

-- name: tumble-two-keys-expressions
-- sink: auction BIGINT, channel VARCHAR, spread BIGINT, label VARCHAR, avgx DOUBLE
INSERT INTO out SELECT auction, channel, MAX(price) - MIN(price), CASE WHEN COUNT(*) > 3 THEN 'busy' ELSE 'quiet' END, AVG(price * 2.5)
FROM bids WHERE auction < 6 GROUP BY auction, channel, TUMBLE(ts, INTERVAL '30' SECOND);
-- duckdb:
SELECT auction, channel, MAX(price) - MIN(price), CASE WHEN COUNT(*) > 3 THEN 'busy' ELSE 'quiet' END, AVG(price * 2.5)
FROM bids WHERE auction < 6 GROUP BY auction, channel, ts // 30000;

-- name: tumble-min-max-strings
-- sink: auction BIGINT, first VARCHAR, last VARCHAR
INSERT INTO out SELECT auction, MIN(channel), MAX(channel) FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '1' MINUTE);
-- duckdb:
SELECT auction, MIN(channel), MAX(channel) FROM bids GROUP BY auction, ts // 60000;

-- name: hop-count-sum
-- sink: auction BIGINT, ws BIGINT, we BIGINT, n BIGINT, total BIGINT
INSERT INTO out SELECT auction, HOP_START(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND), HOP_END(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND), COUNT(*), SUM(price)
FROM bids GROUP BY auction, HOP(ts, INTERVAL '2' SECOND, INTERVAL '10' SECOND);
-- duckdb:
SELECT auction, ts // 2000 * 2000 - k * 2000 AS ws, ts // 2000 * 2000 - k * 2000 + 10000, COUNT(*), SUM(price)
FROM bids, range(0, 5) r(k) GROUP BY auction, ws;

-- name: hop-avg-min-max
-- sink: channel VARCHAR, ws BIGINT, lo BIGINT, hi BIGINT, mean DOUBLE
INSERT INTO out SELECT channel, window_start, MIN(price), MAX(price), AVG(price)
FROM bids WHERE price IS NOT NULL GROUP BY channel, HOP(ts, INTERVAL '5' SECOND, INTERVAL '15' SECOND);
-- duckdb:
SELECT channel, ts // 5000 * 5000 - k * 5000 AS ws, MIN(price), MAX(price), AVG(price)
FROM bids, range(0, 3) r(k) WHERE price IS NOT NULL GROUP BY channel, ws;

-- name: hop-global-having
-- sink: ws BIGINT, n BIGINT, bidders DOUBLE
INSERT INTO out SELECT window_start, COUNT(*), AVG(bidder) FROM bids GROUP BY HOP(ts, INTERVAL '1' SECOND, INTERVAL '3' SECOND) HAVING COUNT(*) >= 60;
-- duckdb:
SELECT ts // 1000 * 1000 - k * 1000 AS ws, COUNT(*), AVG(bidder) FROM bids, range(0, 3) r(k) GROUP BY ws HAVING COUNT(*) >= 60;

-- name: session-per-bidder
-- sink: bidder BIGINT, ws BIGINT, we BIGINT, n BIGINT, total BIGINT
INSERT INTO out SELECT bidder, SESSION_START(ts, INTERVAL '2' SECOND), SESSION_END(ts, INTERVAL '2' SECOND), COUNT(*), SUM(price)
FROM bids GROUP BY bidder, SESSION(ts, INTERVAL '2' SECOND);
-- duckdb: a row more than the gap after the bidder's previous one starts a session (windows that touch merge)
SELECT bidder, MIN(ts), MAX(ts) + 2000, COUNT(*), SUM(price) FROM (
  SELECT *, SUM(CASE WHEN d IS NULL OR d > 2000 THEN 1 ELSE 0 END) OVER (PARTITION BY bidder ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid
  FROM (SELECT *, ts - LAG(ts) OVER (PARTITION BY bidder ORDER BY ts) AS d FROM bids)) GROUP BY bidder, sid;

-- name: session-global-avg
-- sink: ws BIGINT, n BIGINT, mean DOUBLE, hi VARCHAR
INSERT INTO out SELECT window_start, COUNT(*), AVG(price), MAX(channel) FROM bids WHERE auction = 7
GROUP BY SESSION(ts, INTERVAL '1500 milliseconds');
-- duckdb:
SELECT MIN(ts), COUNT(*), AVG(price), MAX(channel) FROM (
  SELECT *, SUM(CASE WHEN d IS NULL OR d > 1500 THEN 1 ELSE 0 END) OVER (ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid
  FROM (SELECT *, ts - LAG(ts) OVER (ORDER BY ts) AS d FROM bids WHERE auction = 7)) GROUP BY sid;

-- name: tumble-count-distinct
-- sink: auction BIGINT, ws BIGINT, bidders BIGINT, channels BIGINT, n BIGINT
INSERT INTO out SELECT auction, window_start, COUNT(DISTINCT bidder), COUNT(DISTINCT channel), COUNT(*)
FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '20' SECOND);
-- duckdb:
SELECT auction, ts // 20000 * 20000 AS ws, COUNT(DISTINCT bidder), COUNT(DISTINCT channel), COUNT(*) FROM bids GROUP BY auction, ws;

-- name: session-count-distinct
-- sink: channel VARCHAR, n BIGINT, auctions BIGINT
INSERT INTO out SELECT channel, COUNT(*), COUNT(DISTINCT auction) FROM bids WHERE bidder = 3
GROUP BY channel, SESSION(ts, INTERVAL '5' SECOND);
-- duckdb:
SELECT channel, COUNT(*), COUNT(DISTINCT auction) FROM (
  SELECT *, SUM(CASE WHEN d IS NULL OR d > 5000 THEN 1 ELSE 0 END) OVER (PARTITION BY channel ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid
  FROM (SELECT *, ts - LAG(ts) OVER (PARTITION BY channel ORDER BY ts) AS d FROM bids WHERE bidder = 3)) GROUP BY channel, sid;

-- name: like
-- sink: channel VARCHAR, bidder BIGINT
INSERT INTO out SELECT channel, bidder FROM bids WHERE channel LIKE '%oo%' OR channel NOT LIKE '_a%';

-- name: tumble-group-by-expressions
-- sink: band BIGINT, lo BIGINT, ch VARCHAR, ws BIGINT, n BIGINT, bidders BIGINT
INSERT INTO out SELECT price / 100, price / 100 * 100, UPPER(channel), window_start, COUNT(*), COUNT(DISTINCT bidder)
FROM bids GROUP BY price / 100, upper(channel), TUMBLE(ts, INTERVAL '20' SECOND);
-- duckdb:
SELECT price // 100 AS band, price // 100 * 100, UPPER(channel) AS ch, ts // 20000 * 20000 AS ws, COUNT(*), COUNT(DISTINCT bidder)
FROM bids GROUP BY band, ch, ws;

-- Updating queries (GROUP BY without a window) write a changelog: each
-- row is op (upsert or delete), then the sink's columns; "-- key:" names
-- the columns (from 1) that identify a row, and the test compares the table
-- the changelog leaves with DuckDB's result.

-- name: updating-count-sum
-- key: 1
-- sink: auction BIGINT, n BIGINT, total BIGINT, mean DOUBLE, bidders BIGINT
INSERT INTO out SELECT auction, COUNT(*), SUM(price), AVG(price), COUNT(DISTINCT bidder) FROM bids GROUP BY auction;

-- name: updating-having-deletes
-- key: 1, 2
-- sink: channel VARCHAR, band BIGINT, n BIGINT, hi BIGINT
INSERT INTO out SELECT channel, price / 250, COUNT(*), MAX(price) FROM bids WHERE price IS NOT NULL
GROUP BY channel, price / 250 HAVING COUNT(*) < 150;
-- duckdb:
SELECT channel, price // 250 AS band, COUNT(*), MAX(price) FROM bids WHERE price IS NOT NULL GROUP BY channel, band HAVING COUNT(*) < 150;

-- Wasm functions (udfs/sqlfns, declared before every query; functions.go):
-- price_band(price) is 'low' under 100, 'mid' under 700, else 'high';
-- scaled(price, factor) is price * factor; tag(channel, bidder) is
-- channel || '#' || bidder; each is NULL for a NULL argument. DuckDB
-- computes the same expressions.

-- name: udf-select-where
-- sink: auction BIGINT, band VARCHAR, t VARCHAR
INSERT INTO out SELECT auction, price_band(price), tag(channel, bidder) FROM bids WHERE price_band(price) <> 'mid';
-- duckdb:
SELECT auction, CASE WHEN price IS NULL THEN NULL WHEN price < 100 THEN 'low' WHEN price < 700 THEN 'mid' ELSE 'high' END, channel || '#' || CAST(bidder AS VARCHAR) FROM bids
WHERE CASE WHEN price IS NULL THEN NULL WHEN price < 100 THEN 'low' WHEN price < 700 THEN 'mid' ELSE 'high' END <> 'mid';

-- name: udf-double-nested
-- sink: bidder BIGINT, a DOUBLE, b DOUBLE, c VARCHAR
INSERT INTO out SELECT bidder, scaled(price, 0.908), scaled(auction, 1.5) + 1, tag(price_band(price), bidder) FROM bids;
-- duckdb:
SELECT bidder, price * CAST(0.908 AS DOUBLE), auction * CAST(1.5 AS DOUBLE) + 1,
  CASE WHEN price IS NULL THEN NULL WHEN price < 100 THEN 'low' WHEN price < 700 THEN 'mid' ELSE 'high' END || '#' || CAST(bidder AS VARCHAR) FROM bids;

-- name: udf-tumble-key
-- sink: band VARCHAR, ws BIGINT, n BIGINT, total BIGINT
INSERT INTO out SELECT price_band(price), window_start, COUNT(*), SUM(price) FROM bids GROUP BY price_band(price), TUMBLE(ts, INTERVAL '10' SECOND);
-- duckdb:
SELECT CASE WHEN price IS NULL THEN NULL WHEN price < 100 THEN 'low' WHEN price < 700 THEN 'mid' ELSE 'high' END AS band, ts // 10000 * 10000 AS ws, COUNT(*), SUM(price)
FROM bids GROUP BY band, ws;

-- name: udf-updating
-- key: 1
-- sink: t VARCHAR, n BIGINT, hi DOUBLE
INSERT INTO out SELECT tag(channel, auction % 3), COUNT(*), MAX(scaled(price, 2.5)) FROM bids GROUP BY tag(channel, auction % 3);
-- duckdb:
SELECT channel || '#' || CAST(auction % 3 AS VARCHAR) AS t, COUNT(*), MAX(price * CAST(2.5 AS DOUBLE)) FROM bids GROUP BY t;
