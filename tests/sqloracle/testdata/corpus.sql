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

-- Joins (docs/sql.md, "Joins") read bids twice, as a and b. DuckDB's
-- interval is milliseconds added to ts, and its window join an equality of
-- the windows' starts.

-- name: interval-join
-- sink: auction BIGINT, b1 BIGINT, b2 BIGINT, p1 BIGINT, p2 BIGINT, d BIGINT
INSERT INTO out SELECT a.auction, a.bidder, b.bidder, a.price, b.price, b.ts - a.ts FROM bids a JOIN bids b
ON a.auction = b.auction AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts + INTERVAL '2' SECOND WHERE a.bidder < b.bidder;
-- duckdb:
SELECT a.auction, a.bidder, b.bidder, a.price, b.price, b.ts - a.ts FROM bids a JOIN bids b
ON a.auction = b.auction AND b.ts BETWEEN a.ts - 1000 AND a.ts + 2000 WHERE a.bidder < b.bidder;

-- name: interval-join-two-keys-left-subject
-- sink: auction BIGINT, channel VARCHAR, p1 BIGINT, p2 BIGINT, t1 BIGINT, t2 BIGINT
INSERT INTO out SELECT a.auction, b.channel, a.price, b.price, a.ts, b.ts FROM bids AS a JOIN bids AS b
ON a.channel = b.channel AND b.auction = a.auction AND a.ts BETWEEN b.ts + INTERVAL '500 milliseconds' AND b.ts + INTERVAL '3' SECOND AND a.price > b.price;
-- duckdb:
SELECT a.auction, b.channel, a.price, b.price, a.ts, b.ts FROM bids AS a JOIN bids AS b
ON a.channel = b.channel AND b.auction = a.auction AND a.ts BETWEEN b.ts + 500 AND b.ts + 3000 AND a.price > b.price;

-- name: interval-join-expression-key
-- sink: k DOUBLE, price BIGINT, channel VARCHAR, bidder BIGINT
INSERT INTO out SELECT b.auction * 1.0, b.price, a.channel, a.bidder FROM bids a JOIN bids b ON a.bidder % 10 + 1 = b.auction * 1.0
AND b.ts BETWEEN a.ts - INTERVAL '300 milliseconds' AND a.ts WHERE a.channel IS NOT NULL;
-- duckdb:
SELECT b.auction * 1.0, b.price, a.channel, a.bidder FROM bids a JOIN bids b ON a.bidder % 10 + 1 = b.auction * 1.0
AND b.ts BETWEEN a.ts - 300 AND a.ts WHERE a.channel IS NOT NULL;

-- name: window-join-tumble
-- sink: auction BIGINT, ws BIGINT, we BIGINT, p1 BIGINT, p2 BIGINT
INSERT INTO out SELECT a.auction, window_start, window_end, a.price, b.price FROM bids a JOIN bids b
ON a.auction = b.auction AND TUMBLE(a.ts, INTERVAL '5' SECOND) = TUMBLE(b.ts, INTERVAL '5' SECOND)
WHERE a.channel = 'apple' AND b.channel = 'google';
-- duckdb:
SELECT a.auction, a.ts // 5000 * 5000, a.ts // 5000 * 5000 + 5000, a.price, b.price FROM bids a JOIN bids b
ON a.auction = b.auction AND a.ts // 5000 = b.ts // 5000 WHERE a.channel = 'apple' AND b.channel = 'google';

-- name: window-join-left
-- sink: auction BIGINT, ws BIGINT, bidder BIGINT, b2 BIGINT, price BIGINT
INSERT INTO out SELECT a.auction, window_start, a.bidder, b.bidder, b.price FROM bids a LEFT JOIN bids b
ON a.auction = b.bidder AND TUMBLE(a.ts, INTERVAL '2' SECOND) = TUMBLE(b.ts, INTERVAL '2' SECOND) WHERE a.bidder < 20;
-- duckdb:
SELECT a.auction, a.ts // 2000 * 2000, a.bidder, b.bidder, b.price FROM bids a LEFT JOIN bids b
ON a.auction = b.bidder AND a.ts // 2000 = b.ts // 2000 WHERE a.bidder < 20;

-- name: window-join-hop
-- sink: channel VARCHAR, ws BIGINT, a1 BIGINT, a2 BIGINT
INSERT INTO out SELECT a.channel, window_start, a.auction, b.auction FROM bids a JOIN bids b
ON a.channel = b.channel AND HOP(a.ts, INTERVAL '1' SECOND, INTERVAL '2' SECOND) = HOP(b.ts, INTERVAL '1' SECOND, INTERVAL '2' SECOND)
WHERE a.bidder = 7 AND b.bidder < 5;
-- duckdb:
SELECT a.channel, a.ws, a.auction, b.auction FROM
  (SELECT *, ts // 1000 * 1000 - k * 1000 AS ws FROM bids, range(0, 2) r(k)) a JOIN
  (SELECT *, ts // 1000 * 1000 - k * 1000 AS ws FROM bids, range(0, 2) r(k)) b
ON a.channel = b.channel AND a.ws = b.ws WHERE a.bidder = 7 AND b.bidder < 5;

-- name: regular-join-state-ttl
-- sink: auction BIGINT, b1 BIGINT, b2 BIGINT, d BIGINT
SET state_ttl = '3s';
INSERT INTO out SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a JOIN bids b ON a.auction = b.auction AND a.bidder + 10 < b.bidder;
-- duckdb: a regular join's state TTL is event time: rows at most the TTL apart join
SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a JOIN bids b ON a.auction = b.auction AND a.bidder + 10 < b.bidder AND abs(b.ts - a.ts) <= 3000;

-- Joins of bids with a second table,
--
--   asks (auction BIGINT, seller BIGINT, price BIGINT, ts BIGINT)
--        WITH (watermark = 'ts - 1s')
--
-- (price sometimes NULL; auctions 1-25, where bids has 1-20).

-- name: two-tables-interval-join
-- sink: auction BIGINT, bidder BIGINT, seller BIGINT, spread BIGINT, d BIGINT
INSERT INTO out SELECT b.auction, bidder, seller, b.price - a.price, a.ts - b.ts FROM bids b JOIN asks a
ON a.auction = b.auction AND a.ts BETWEEN b.ts - INTERVAL '2' SECOND AND b.ts + INTERVAL '1' SECOND WHERE b.price >= a.price;
-- duckdb:
SELECT b.auction, bidder, seller, b.price - a.price, a.ts - b.ts FROM bids b JOIN asks a
ON a.auction = b.auction AND a.ts BETWEEN b.ts - 2000 AND b.ts + 1000 WHERE b.price >= a.price;

-- name: two-tables-comma-where
-- sink: auction BIGINT, seller BIGINT, bid BIGINT, ask BIGINT
INSERT INTO out SELECT b.auction, seller, b.price, a.price FROM bids b, asks a
WHERE a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1500 milliseconds' AND seller < 12;
-- duckdb:
SELECT b.auction, seller, b.price, a.price FROM bids b, asks a
WHERE a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + 1500 AND seller < 12;

-- name: two-tables-window-join-left
-- sink: auction BIGINT, ws BIGINT, we BIGINT, seller BIGINT, bid BIGINT, ask BIGINT
INSERT INTO out SELECT a.auction, window_start, window_end, seller, b.price, a.price FROM asks a LEFT JOIN bids b
ON b.auction = a.auction AND TUMBLE(a.ts, INTERVAL '3' SECOND) = TUMBLE(b.ts, INTERVAL '3' SECOND) WHERE seller < 10;
-- duckdb:
SELECT a.auction, a.ts // 3000 * 3000, a.ts // 3000 * 3000 + 3000, seller, b.price, a.price FROM asks a LEFT JOIN bids b
ON b.auction = a.auction AND a.ts // 3000 = b.ts // 3000 WHERE seller < 10;

-- name: two-tables-window-join-left-null-keys
-- sink: auction BIGINT, price BIGINT, seller BIGINT, ws BIGINT
INSERT INTO out SELECT b.auction, b.price, a.seller, window_start FROM bids b LEFT JOIN asks a
ON b.price = a.price AND HOP(b.ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) = HOP(a.ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND)
WHERE b.bidder < 8;
-- duckdb: a NULL price joins nothing, and its bid is kept with NULLs
SELECT b.auction, b.price, a.seller, b.ws FROM
  (SELECT *, ts // 5000 * 5000 - k * 5000 AS ws FROM bids, range(0, 2) r(k)) b LEFT JOIN
  (SELECT *, ts // 5000 * 5000 - k * 5000 AS ws FROM asks, range(0, 2) r(k)) a
ON b.price = a.price AND b.ws = a.ws WHERE b.bidder < 8;

-- Top-N and deduplication are updating: each rank of each partition is a
-- row, identified by the partition and the rank (or the partition alone
-- for a deduplication). The ORDER BYs are total, so that ROW_NUMBER is
-- the same in DuckDB; DuckDB is told PostgreSQL's NULL order.

-- name: topn-price-per-auction
-- key: 1, 4
-- sink: auction BIGINT, price BIGINT, bidder BIGINT, rn BIGINT
INSERT INTO out SELECT auction, price, bidder, rn FROM (
  SELECT auction, price, bidder, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC, ts, bidder) AS rn FROM bids
) t WHERE rn <= 3;
-- duckdb:
SELECT auction, price, bidder, rn FROM (
  SELECT auction, price, bidder, ROW_NUMBER() OVER (PARTITION BY auction ORDER BY price DESC NULLS FIRST, ts, bidder) AS rn FROM bids
) t WHERE rn <= 3;

-- name: topn-expressions-where
-- key: 1, 2
-- sink: ch VARCHAR, rank BIGINT, cents BIGINT, ts BIGINT
INSERT INTO out SELECT ch, rn, cents, ts FROM (
  SELECT UPPER(channel) AS ch, price * 100 AS cents, ts, ROW_NUMBER() OVER (PARTITION BY UPPER(channel) ORDER BY price, ts DESC, bidder) AS rn
  FROM bids WHERE auction < 10
) WHERE rn < 6 AND cents > 1000;
-- duckdb:
SELECT ch, rn, cents, ts FROM (
  SELECT UPPER(channel) AS ch, price * 100 AS cents, ts, ROW_NUMBER() OVER (PARTITION BY UPPER(channel) ORDER BY price, ts DESC, bidder) AS rn
  FROM bids WHERE auction < 10
) WHERE rn < 6 AND cents > 1000;

-- name: topn-global
-- key: 3
-- sink: auction BIGINT, price BIGINT, rn BIGINT
INSERT INTO out SELECT auction, price, rn FROM (
  SELECT *, ROW_NUMBER() OVER (ORDER BY price DESC NULLS LAST, ts, bidder) AS rn FROM bids
) WHERE rn <= 10;

-- name: dedup-first-bid-per-bidder
-- key: 1
-- sink: bidder BIGINT, auction BIGINT, price BIGINT, ts BIGINT
INSERT INTO out SELECT bidder, auction, price, ts FROM (
  SELECT bidder, auction, price, ts, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY ts, auction, price) AS rn FROM bids
) WHERE rn = 1;
-- duckdb:
SELECT bidder, auction, price, ts FROM (
  SELECT bidder, auction, price, ts, ROW_NUMBER() OVER (PARTITION BY bidder ORDER BY ts, auction, price NULLS LAST) AS rn FROM bids
) WHERE rn = 1;

-- name: dedup-last-per-auction-channel
-- key: 1, 2
-- sink: auction BIGINT, channel VARCHAR, bidder BIGINT, ts BIGINT
INSERT INTO out SELECT auction, channel, bidder, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY auction, channel ORDER BY ts DESC, bidder DESC) AS rn FROM bids
) AS d WHERE d.rn = 1;

-- RANK() and DENSE_RANK() over a table retract: a row is identified by
-- all its values, rank included (a row whose rank changes is deleted and
-- upserted again), so the key is every column.

-- name: topn-rank-per-auction-ties
-- key: 1, 2, 3, 4, 5
-- sink: auction BIGINT, price BIGINT, bidder BIGINT, ts BIGINT, rk BIGINT
INSERT INTO out SELECT auction, price, bidder, ts, rk FROM (
  SELECT auction, price, bidder, ts, RANK() OVER (PARTITION BY auction ORDER BY price / 100 DESC NULLS LAST) AS rk FROM bids
) WHERE rk <= 2;
-- duckdb:
SELECT auction, price, bidder, ts, rk FROM (
  SELECT auction, price, bidder, ts, RANK() OVER (PARTITION BY auction ORDER BY price // 100 DESC NULLS LAST) AS rk FROM bids
) WHERE rk <= 2;

-- name: topn-dense-rank-channel-where
-- key: 1, 2, 3, 4, 5
-- sink: channel VARCHAR, price BIGINT, bidder BIGINT, ts BIGINT, rk BIGINT
INSERT INTO out SELECT channel, price, bidder, ts, rk FROM (
  SELECT channel, price, bidder, ts, DENSE_RANK() OVER (PARTITION BY channel ORDER BY price / 50 NULLS LAST) AS rk FROM bids WHERE auction < 20
) WHERE rk <= 3 AND bidder % 2 = 0;
-- duckdb:
SELECT channel, price, bidder, ts, rk FROM (
  SELECT channel, price, bidder, ts, DENSE_RANK() OVER (PARTITION BY channel ORDER BY price // 50 NULLS LAST) AS rk FROM bids WHERE auction < 20
) WHERE rk <= 3 AND bidder % 2 = 0;

-- A window Top-N ranks each window's rows once, when the window fires: its
-- rows are appended, and RANK() and DENSE_RANK() keep every tie (sort keys
-- of price / 100 make many), so the result is DuckDB's whatever the order
-- rows arrive in.

-- name: window-topn-rank-tumble-ties
-- sink: channel VARCHAR, ws BIGINT, bidder BIGINT, price BIGINT, rk BIGINT
INSERT INTO out SELECT channel, window_start, bidder, price, rk FROM (
  SELECT channel, window_start, bidder, price,
         RANK() OVER (PARTITION BY TUMBLE(ts, INTERVAL '5' SECOND), channel ORDER BY price / 100 DESC NULLS LAST) AS rk
  FROM bids
) WHERE rk <= 2;
-- duckdb:
SELECT channel, ws, bidder, price, rk FROM (
  SELECT channel, ts // 5000 * 5000 AS ws, bidder, price,
         RANK() OVER (PARTITION BY ts // 5000 * 5000, channel ORDER BY price // 100 DESC NULLS LAST) AS rk
  FROM bids
) WHERE rk <= 2;

-- name: window-topn-dense-rank-hop
-- sink: we BIGINT, auction BIGINT, bidder BIGINT, rk BIGINT
INSERT INTO out SELECT we, auction, bidder, rk FROM (
  SELECT auction, bidder, window_end AS we,
         DENSE_RANK() OVER (PARTITION BY HOP(ts, INTERVAL '2' SECOND, INTERVAL '6' SECOND) ORDER BY price / 100 DESC NULLS LAST) AS rk
  FROM bids WHERE channel <> 'baidu'
) WHERE rk <= 3;
-- duckdb:
SELECT we, auction, bidder, rk FROM (
  SELECT auction, bidder, ts // 2000 * 2000 - k * 2000 + 6000 AS we,
         DENSE_RANK() OVER (PARTITION BY ts // 2000 * 2000 - k * 2000 ORDER BY price // 100 DESC NULLS LAST) AS rk
  FROM bids, range(0, 3) r(k) WHERE channel <> 'baidu'
) WHERE rk <= 3;

-- name: window-topn-lowest-tumble-end-where
-- sink: we BIGINT, auction BIGINT, bidder BIGINT, price BIGINT
INSERT INTO out SELECT we, auction, bidder, price FROM (
  SELECT auction, bidder, price, TUMBLE_END(ts, INTERVAL '10' SECOND) AS we,
         RANK() OVER (PARTITION BY auction, TUMBLE(ts, INTERVAL '10' SECOND) ORDER BY price NULLS LAST) AS rk
  FROM bids WHERE auction < 5
) WHERE rk = 1 AND price IS NOT NULL;
-- duckdb:
SELECT we, auction, bidder, price FROM (
  SELECT auction, bidder, price, ts // 10000 * 10000 + 10000 AS we,
         RANK() OVER (PARTITION BY auction, ts // 10000 ORDER BY price NULLS LAST) AS rk
  FROM bids WHERE auction < 5
) WHERE rk = 1 AND price IS NOT NULL;

-- name: window-topn-row-number-over-tumble-count
-- sink: ws BIGINT, auction BIGINT, n BIGINT, rn BIGINT
INSERT INTO out SELECT window_start, auction, n, rn FROM (
  SELECT window_start, window_end, auction, n,
         ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY n DESC, auction) AS rn
  FROM (SELECT auction, window_start, window_end, COUNT(*) AS n FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '10' SECOND))
) WHERE rn <= 3;
-- duckdb:
SELECT ws, auction, n, rn FROM (
  SELECT ws, auction, n, ROW_NUMBER() OVER (PARTITION BY ws ORDER BY n DESC, auction) AS rn
  FROM (SELECT auction, ts // 10000 * 10000 AS ws, COUNT(*) AS n FROM bids GROUP BY auction, ws)
) WHERE rn <= 3;

-- name: window-topn-rank-over-hop-max-per-channel
-- sink: channel VARCHAR, we BIGINT, auction BIGINT, hi BIGINT, rk BIGINT
INSERT INTO out SELECT channel, window_end, auction, hi, rk FROM (
  SELECT channel, auction, hi, window_start, window_end,
         RANK() OVER (PARTITION BY window_start, window_end, channel ORDER BY hi / 100 DESC NULLS LAST) AS rk
  FROM (SELECT channel, auction, HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS window_start,
               HOP_END(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND) AS window_end, MAX(price) AS hi
        FROM bids GROUP BY channel, auction, HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND)) AS g
) WHERE rk <= 1;
-- duckdb:
SELECT channel, we, auction, hi, rk FROM (
  SELECT channel, auction, hi, we,
         RANK() OVER (PARTITION BY ws, channel ORDER BY hi // 100 DESC NULLS LAST) AS rk
  FROM (SELECT channel, auction, ts // 5000 * 5000 - k * 5000 AS ws, ts // 5000 * 5000 - k * 5000 + 10000 AS we, MAX(price) AS hi
        FROM bids, range(0, 2) r(k) GROUP BY channel, auction, ws, we)
) WHERE rk <= 1;

-- Updating queries (GROUP BY without a window) write a changelog: each
-- row is op (upsert or delete), then the sink's columns; "-- key:" names
-- the columns (from 1) that identify a row, and the test compares the table
-- the changelog leaves with DuckDB's result.

-- name: updating-count-sum
-- key: 1
-- sink: auction BIGINT, n BIGINT, total BIGINT, mean DOUBLE, bidders BIGINT
INSERT INTO out SELECT auction, COUNT(*), SUM(price), AVG(price), COUNT(DISTINCT bidder) FROM bids GROUP BY auction;

-- name: updating-group-of-group-histogram
-- key: 1
-- sink: n BIGINT, auctions BIGINT, total BIGINT
INSERT INTO out SELECT n, COUNT(*), SUM(n) FROM (
  SELECT auction, COUNT(*) AS n FROM bids GROUP BY auction
) GROUP BY n;

-- name: updating-group-of-group-avg-of-max
-- key: 1
-- sink: channel VARCHAR, mean DOUBLE, k BIGINT
INSERT INTO out SELECT channel, AVG(hi), COUNT(hi) FROM (
  SELECT channel, bidder % 5 AS b, MAX(price) AS hi FROM bids GROUP BY channel, bidder % 5
) AS g WHERE b <> 2 GROUP BY channel HAVING COUNT(*) > 1;

-- name: updating-group-over-interval-join
-- key: 1
-- sink: auction BIGINT, pairs BIGINT, hi BIGINT, spread DOUBLE
INSERT INTO out SELECT a.auction, COUNT(*), MAX(b.price), AVG(b.price - a.price) FROM bids a JOIN bids b
ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '2' SECOND WHERE a.bidder < b.bidder
GROUP BY a.auction HAVING COUNT(*) > 2 AND MIN(a.price) < 900;
-- duckdb:
SELECT a.auction, COUNT(*), MAX(b.price), AVG(b.price - a.price) FROM bids a JOIN bids b
ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + 2000 WHERE a.bidder < b.bidder
GROUP BY a.auction HAVING COUNT(*) > 2 AND MIN(a.price) < 900;

-- name: updating-count-star-alone
-- key: 1
-- sink: one BIGINT, n BIGINT
INSERT INTO out SELECT 1, COUNT(*) FROM bids;

-- name: updating-count-over-interval-join
-- key: 1
-- sink: one BIGINT, pairs BIGINT
INSERT INTO out SELECT 1, COUNT(*) FROM bids a JOIN bids b
ON a.auction = b.auction AND b.ts BETWEEN a.ts - INTERVAL '1' SECOND AND a.ts;
-- duckdb:
SELECT 1, COUNT(*) FROM bids a JOIN bids b
ON a.auction = b.auction AND b.ts BETWEEN a.ts - 1000 AND a.ts;

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

-- Wasm aggregates and a table function (udfs/sqlfns): spread(x) is
-- MAX(x) - MIN(x), count_above(x, f) counts x > f; series(n, s) returns,
-- for n > 0, the rows i = 1 ... n % 5 with tag s || '#' || i. DuckDB
-- computes them with built-ins and unnest.

-- name: wasm-agg-tumble
-- sink: auction BIGINT, ws BIGINT, n BIGINT, s BIGINT, a BIGINT
INSERT INTO out SELECT auction, window_start, COUNT(*), spread(price), count_above(price, 500) FROM bids GROUP BY auction, TUMBLE(ts, INTERVAL '10' SECOND);
-- duckdb:
SELECT auction, ts // 10000 * 10000 AS ws, COUNT(*), MAX(price) - MIN(price), COUNT(CASE WHEN price > 500 THEN 1 END) FROM bids GROUP BY auction, ws;

-- name: wasm-agg-hop-having
-- sink: channel VARCHAR, ws BIGINT, s BIGINT
INSERT INTO out SELECT channel, window_start, spread(price) FROM bids GROUP BY channel, HOP(ts, INTERVAL '2' SECOND, INTERVAL '6' SECOND) HAVING count_above(price, 900) > 0;
-- duckdb:
SELECT channel, ts // 2000 * 2000 - k * 2000 AS ws, MAX(price) - MIN(price)
FROM bids, range(0, 3) r(k) GROUP BY channel, ws HAVING COUNT(CASE WHEN price > 900 THEN 1 END) > 0;

-- name: wasm-agg-session
-- sink: bidder BIGINT, ws BIGINT, we BIGINT, n BIGINT, s BIGINT
INSERT INTO out SELECT bidder, SESSION_START(ts, INTERVAL '2' SECOND), SESSION_END(ts, INTERVAL '2' SECOND), COUNT(*), spread(price) FROM bids GROUP BY bidder, SESSION(ts, INTERVAL '2' SECOND);
-- duckdb:
SELECT bidder, MIN(ts), MAX(ts) + 2000, COUNT(*), MAX(price) - MIN(price) FROM (
  SELECT *, SUM(CASE WHEN d IS NULL OR d > 2000 THEN 1 ELSE 0 END) OVER (PARTITION BY bidder ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid
  FROM (SELECT *, ts - LAG(ts) OVER (PARTITION BY bidder ORDER BY ts) AS d FROM bids)) GROUP BY bidder, sid;

-- name: wasm-agg-updating
-- key: 1
-- sink: auction BIGINT, s BIGINT, a BIGINT, n BIGINT
INSERT INTO out SELECT auction, spread(price), count_above(price, bidder * 10), COUNT(*) FROM bids GROUP BY auction;
-- duckdb:
SELECT auction, MAX(price) - MIN(price), COUNT(CASE WHEN price > bidder * 10 THEN 1 END), COUNT(*) FROM bids GROUP BY auction;

-- name: wasm-table-lateral
-- sink: auction BIGINT, i BIGINT, tag VARCHAR
INSERT INTO out SELECT b.auction, u.i, u.tag FROM bids b, LATERAL series(b.price, b.channel) AS u(i, tag) WHERE u.i <> 2;
-- duckdb:
SELECT auction, i, channel || '#' || CAST(i AS VARCHAR) FROM (SELECT auction, channel, unnest(range(1, price % 5 + 1)) AS i FROM bids WHERE price > 0) WHERE i <> 2;

-- name: wasm-table-cross-join-tumble
-- sink: i BIGINT, ws BIGINT, n BIGINT, s BIGINT
INSERT INTO out SELECT i, window_start, COUNT(*), spread(bidder) FROM bids CROSS JOIN LATERAL series(price, channel) GROUP BY i, TUMBLE(ts, INTERVAL '10' SECOND);
-- duckdb:
SELECT i, ts // 10000 * 10000 AS ws, COUNT(*), MAX(bidder) - MIN(bidder) FROM (SELECT ts, bidder, unnest(range(1, price % 5 + 1)) AS i FROM bids WHERE price > 0) GROUP BY i, ws;

-- SELECT DISTINCT is an updating GROUP BY of its whole SELECT list: each
-- distinct row is upserted, identified by all its columns.

-- name: distinct-columns
-- key: 1, 2
-- sink: auction BIGINT, channel VARCHAR
INSERT INTO out SELECT DISTINCT auction, channel FROM bids;

-- name: distinct-expressions-where
-- key: 1, 2
-- sink: band BIGINT, ch VARCHAR
INSERT INTO out SELECT DISTINCT price / 100, UPPER(channel) FROM bids WHERE bidder < 30;
-- duckdb:
SELECT DISTINCT price // 100, UPPER(channel) FROM bids WHERE bidder < 30;

-- name: distinct-star
-- key: 1, 2, 3, 4, 5
-- sink: auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, ts BIGINT
INSERT INTO out SELECT DISTINCT * FROM bids WHERE auction = 2;

-- name: distinct-repeated-column-constant
-- key: 1, 2, 3
-- sink: bidder BIGINT, b2 BIGINT, tag VARCHAR
INSERT INTO out SELECT DISTINCT bidder % 7, bidder % 7, 'x' FROM bids;

-- More functions, CASE inside aggregates, HAVING variants, every aggregate
-- in each window type, and joins with expressions on top.

-- name: string-functions-more
-- sink: l VARCHAR, c VARCHAR, d VARCHAR, n BIGINT, s VARCHAR
INSERT INTO out SELECT LOWER(UPPER(channel)), CONCAT(channel, '/', CAST(bidder AS VARCHAR)), COALESCE(channel, 'none'),
  LENGTH(COALESCE(channel, '')), SUBSTR(channel, 3) FROM bids;

-- name: math-floor-ceil-round
-- sink: f DOUBLE, c DOUBLE, r DOUBLE, r1 DOUBLE, a DOUBLE
INSERT INTO out SELECT FLOOR(price / 7.0), CEILING(price / 7.0), ROUND(price / 7.0), ROUND(price / 7.0, 1), ABS(500.5 - price) FROM bids;

-- name: case-in-aggregates-tumble
-- sink: ws BIGINT, apple BIGINT, dear BIGINT, cheap_avg DOUBLE
INSERT INTO out SELECT window_start, SUM(CASE WHEN channel = 'apple' THEN price ELSE 0 END), COUNT(CASE WHEN price > 500 THEN 1 END),
  AVG(CASE WHEN price <= 500 THEN price END)
FROM bids GROUP BY TUMBLE(ts, INTERVAL '3' SECOND);
-- duckdb:
SELECT ts // 3000 * 3000 AS ws, SUM(CASE WHEN channel = 'apple' THEN price ELSE 0 END), COUNT(CASE WHEN price > 500 THEN 1 END),
  AVG(CASE WHEN price <= 500 THEN price END)
FROM bids GROUP BY ws;

-- name: having-spread-distinct-tumble
-- sink: auction BIGINT, ws BIGINT, spread BIGINT, bidders BIGINT
INSERT INTO out SELECT auction, window_start, MAX(price) - MIN(price), COUNT(DISTINCT bidder) FROM bids
GROUP BY auction, TUMBLE(ts, INTERVAL '10' SECOND) HAVING MAX(price) - MIN(price) > 300 AND COUNT(DISTINCT bidder) >= 3 OR MIN(price) IS NULL;
-- duckdb:
SELECT auction, ts // 10000 * 10000 AS ws, MAX(price) - MIN(price), COUNT(DISTINCT bidder) FROM bids
GROUP BY auction, ws HAVING MAX(price) - MIN(price) > 300 AND COUNT(DISTINCT bidder) >= 3 OR MIN(price) IS NULL;

-- name: having-on-key-updating
-- key: 1
-- sink: channel VARCHAR, n BIGINT, lo BIGINT
INSERT INTO out SELECT channel, COUNT(*), MIN(price) FROM bids GROUP BY channel HAVING channel IS NOT NULL AND channel <> 'baidu';

-- name: having-case-updating
-- key: 1
-- sink: m BIGINT, label VARCHAR, mean DOUBLE
INSERT INTO out SELECT bidder % 5, CASE WHEN AVG(price) > 500 THEN 'high' ELSE 'low' END, AVG(price) FROM bids
GROUP BY bidder % 5 HAVING SUM(CASE WHEN channel = 'google' THEN 1 ELSE 0 END) > 10;

-- name: updating-min-max-strings
-- key: 1
-- sink: a BIGINT, first VARCHAR, last VARCHAR, n BIGINT, total BIGINT
INSERT INTO out SELECT auction % 4, MIN(channel), MAX(channel), COUNT(channel), SUM(price) FROM bids GROUP BY auction % 4;

-- name: hop-every-aggregate
-- sink: auction BIGINT, ws BIGINT, n BIGINT, np BIGINT, total BIGINT, lo BIGINT, hi BIGINT, mean DOUBLE, d BIGINT
INSERT INTO out SELECT auction, window_start, COUNT(*), COUNT(price), SUM(price), MIN(price), MAX(price), AVG(price), COUNT(DISTINCT channel)
FROM bids WHERE auction <= 5 GROUP BY auction, HOP(ts, INTERVAL '4' SECOND, INTERVAL '8' SECOND);
-- duckdb:
SELECT auction, ts // 4000 * 4000 - k * 4000 AS ws, COUNT(*), COUNT(price), SUM(price), MIN(price), MAX(price), AVG(price), COUNT(DISTINCT channel)
FROM bids, range(0, 2) r(k) WHERE auction <= 5 GROUP BY auction, ws;

-- name: session-every-aggregate
-- sink: auction BIGINT, ws BIGINT, we BIGINT, n BIGINT, np BIGINT, total BIGINT, lo BIGINT, hi BIGINT, mean DOUBLE, d BIGINT
INSERT INTO out SELECT auction, window_start, window_end, COUNT(*), COUNT(price), SUM(price), MIN(price), MAX(price), AVG(price), COUNT(DISTINCT bidder)
FROM bids WHERE bidder < 4 GROUP BY auction, SESSION(ts, INTERVAL '3' SECOND);
-- duckdb:
SELECT auction, MIN(ts), MAX(ts) + 3000, COUNT(*), COUNT(price), SUM(price), MIN(price), MAX(price), AVG(price), COUNT(DISTINCT bidder) FROM (
  SELECT *, SUM(CASE WHEN d IS NULL OR d > 3000 THEN 1 ELSE 0 END) OVER (PARTITION BY auction ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid
  FROM (SELECT *, ts - LAG(ts) OVER (PARTITION BY auction ORDER BY ts) AS d FROM bids WHERE bidder < 4)) GROUP BY auction, sid;

-- name: tumble-smaller-than-disorder
-- sink: ws BIGINT, we BIGINT, n BIGINT, hi BIGINT
INSERT INTO out SELECT TUMBLE_START(ts, INTERVAL '250 milliseconds'), TUMBLE_END(ts, INTERVAL '250 milliseconds'), COUNT(*), MAX(price)
FROM bids GROUP BY TUMBLE(ts, INTERVAL '250 milliseconds');
-- duckdb:
SELECT ts // 250 * 250 AS ws, ts // 250 * 250 + 250, COUNT(*), MAX(price) FROM bids GROUP BY ws;

-- name: interval-join-expressions-on-top
-- sink: auction BIGINT, band VARCHAR, gap BIGINT, total BIGINT
INSERT INTO out SELECT a.auction, CASE WHEN a.price + b.price > 1000 THEN 'pair-high' ELSE LOWER(COALESCE(b.channel, 'NONE')) END,
  ABS(b.ts - a.ts), COALESCE(a.price, 0) + COALESCE(b.price, 0)
FROM bids a JOIN bids b ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND
WHERE a.bidder <> b.bidder AND a.auction % 3 = 0;
-- duckdb:
SELECT a.auction, CASE WHEN a.price + b.price > 1000 THEN 'pair-high' ELSE LOWER(COALESCE(b.channel, 'NONE')) END,
  ABS(b.ts - a.ts), COALESCE(a.price, 0) + COALESCE(b.price, 0)
FROM bids a JOIN bids b ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + 1000
WHERE a.bidder <> b.bidder AND a.auction % 3 = 0;

-- name: window-join-left-coalesce
-- sink: bidder BIGINT, ws BIGINT, other VARCHAR, found BOOLEAN
INSERT INTO out SELECT a.bidder, window_start, COALESCE(b.channel, 'unmatched'), b.auction IS NOT NULL FROM bids a LEFT JOIN bids b
ON a.bidder = b.bidder + 1 AND TUMBLE(a.ts, INTERVAL '1' SECOND) = TUMBLE(b.ts, INTERVAL '1' SECOND) WHERE a.price > 900;
-- duckdb:
SELECT a.bidder, a.ts // 1000 * 1000, COALESCE(b.channel, 'unmatched'), b.auction IS NOT NULL FROM bids a LEFT JOIN bids b
ON a.bidder = b.bidder + 1 AND a.ts // 1000 = b.ts // 1000 WHERE a.price > 900;

-- name: distinct-window-join
-- key: 1, 2, 3
-- sink: auction BIGINT, ws BIGINT, ch VARCHAR
INSERT INTO out SELECT DISTINCT a.auction, window_start, b.channel FROM bids a JOIN bids b
ON a.auction = b.auction AND TUMBLE(a.ts, INTERVAL '5' SECOND) = TUMBLE(b.ts, INTERVAL '5' SECOND) WHERE a.price > b.price;
-- duckdb:
SELECT DISTINCT a.auction, a.ts // 5000 * 5000, b.channel FROM bids a JOIN bids b
ON a.auction = b.auction AND a.ts // 5000 = b.ts // 5000 WHERE a.price > b.price;

-- name: distinct-interval-join
-- key: 1, 2
-- sink: bidder BIGINT, other BIGINT
INSERT INTO out SELECT DISTINCT a.bidder, b.bidder FROM bids a JOIN bids b
ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '200 milliseconds' WHERE a.bidder < 5;
-- duckdb:
SELECT DISTINCT a.bidder, b.bidder FROM bids a JOIN bids b
ON a.auction = b.auction AND b.ts BETWEEN a.ts AND a.ts + 200 WHERE a.bidder < 5;

-- Outer joins (docs/sql.md, "Outer joins"). A regular outer join's result
-- is updating: a changelog of inserts and deletes (a row alone, with
-- NULLs, is deleted when its first match arrives), applied as a multiset
-- before comparing; its state TTL is event time, the rows at most the TTL
-- apart join. Outer interval and window joins are appended. Whether a LEFT
-- join deletes depends on which side's batches the join gets first, so
-- only the FULL join, where the first of any matching rows to arrive is
-- alone first, requires deletes (-deletes).

-- name: regular-left-join
-- key: 1
-- sink: auction BIGINT, bidder BIGINT, seller BIGINT, d BIGINT
SET state_ttl = '500ms';
INSERT INTO out SELECT b.auction, b.bidder, a.seller, a.ts - b.ts FROM bids b LEFT JOIN asks a ON a.auction = b.auction;
-- duckdb:
SELECT b.auction, b.bidder, a.seller, a.ts - b.ts FROM bids b LEFT JOIN asks a ON a.auction = b.auction AND abs(a.ts - b.ts) <= 500;

-- name: regular-left-self-join
-- key: 1
-- sink: auction BIGINT, b1 BIGINT, b2 BIGINT, d BIGINT
SET state_ttl = '400ms';
INSERT INTO out SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a LEFT JOIN bids b ON b.auction = a.auction + 1 WHERE a.price > 300;
-- duckdb:
SELECT a.auction, a.bidder, b.bidder, b.ts - a.ts FROM bids a LEFT JOIN bids b ON b.auction = a.auction + 1 AND abs(b.ts - a.ts) <= 400 WHERE a.price > 300;

-- name: regular-right-join
-- key: 1
-- sink: auction BIGINT, seller BIGINT, bidder BIGINT
SET state_ttl = '500ms';
INSERT INTO out SELECT a.auction, a.seller, b.bidder FROM bids b RIGHT JOIN asks a ON a.auction = b.auction WHERE a.seller < 20;
-- duckdb:
SELECT a.auction, a.seller, b.bidder FROM bids b RIGHT JOIN asks a ON a.auction = b.auction AND abs(a.ts - b.ts) <= 500 WHERE a.seller < 20;

-- name: regular-full-join-null-keys-deletes
-- key: 1
-- sink: bidder BIGINT, seller BIGINT, price BIGINT
SET state_ttl = '3s';
INSERT INTO out SELECT b.bidder, a.seller, COALESCE(b.price, a.price) FROM bids b FULL OUTER JOIN asks a ON a.price = b.price
WHERE b.channel IS NULL OR b.channel <> 'baidu';
-- duckdb: NULL prices join nothing, and are kept on both sides
SELECT b.bidder, a.seller, COALESCE(b.price, a.price) FROM bids b FULL OUTER JOIN asks a ON a.price = b.price AND abs(a.ts - b.ts) <= 3000
WHERE b.channel IS NULL OR b.channel <> 'baidu';

-- name: interval-left-join
-- sink: auction BIGINT, bidder BIGINT, seller BIGINT
INSERT INTO out SELECT b.auction, b.bidder, a.seller FROM bids b LEFT JOIN asks a
ON a.auction = b.auction AND a.ts BETWEEN b.ts - INTERVAL '200 milliseconds' AND b.ts + INTERVAL '300 milliseconds';
-- duckdb:
SELECT b.auction, b.bidder, a.seller FROM bids b LEFT JOIN asks a
ON a.auction = b.auction AND a.ts BETWEEN b.ts - 200 AND b.ts + 300;

-- name: interval-right-join
-- sink: auction BIGINT, seller BIGINT, bidder BIGINT, d BIGINT
INSERT INTO out SELECT a.auction, a.seller, b.bidder, b.ts - a.ts FROM bids b RIGHT JOIN asks a
ON b.auction = a.auction AND b.ts BETWEEN a.ts AND a.ts + INTERVAL '1' SECOND WHERE a.price > 100;
-- duckdb:
SELECT a.auction, a.seller, b.bidder, b.ts - a.ts FROM bids b RIGHT JOIN asks a
ON b.auction = a.auction AND b.ts BETWEEN a.ts AND a.ts + 1000 WHERE a.price > 100;

-- name: interval-full-join-null-keys
-- sink: seller BIGINT, bidder BIGINT, price BIGINT
INSERT INTO out SELECT a.seller, b.bidder, a.price FROM bids b FULL JOIN asks a
ON a.price = b.price AND b.ts BETWEEN a.ts - INTERVAL '5' SECOND AND a.ts;
-- duckdb:
SELECT a.seller, b.bidder, a.price FROM bids b FULL JOIN asks a
ON a.price = b.price AND b.ts BETWEEN a.ts - 5000 AND a.ts;

-- name: window-right-join
-- sink: auction BIGINT, ws BIGINT, seller BIGINT, bidder BIGINT
INSERT INTO out SELECT a.auction, window_start, a.seller, b.bidder FROM bids b RIGHT JOIN asks a
ON a.auction = b.auction AND TUMBLE(a.ts, INTERVAL '1' SECOND) = TUMBLE(b.ts, INTERVAL '1' SECOND);
-- duckdb:
SELECT a.auction, a.ts // 1000 * 1000, a.seller, b.bidder FROM bids b RIGHT JOIN asks a
ON a.auction = b.auction AND a.ts // 1000 = b.ts // 1000;

-- name: session-window-join
-- sink: auction BIGINT, ws BIGINT, we BIGINT, bid BIGINT, ask BIGINT
INSERT INTO out SELECT b.auction, window_start, window_end, b.price, a.price FROM bids b JOIN asks a
ON a.auction = b.auction AND SESSION(b.ts, INTERVAL '300 milliseconds') = SESSION(a.ts, INTERVAL '300 milliseconds')
WHERE b.price > 800;
-- duckdb: a key's sessions over both tables' rows: rows 300 ms or more apart are in different sessions
WITH u AS (SELECT auction AS k, ts FROM bids UNION ALL SELECT auction, ts FROM asks),
g AS (SELECT k, ts, CASE WHEN ts - lag(ts) OVER (PARTITION BY k ORDER BY ts) < 300 THEN 0 ELSE 1 END AS fresh FROM u),
n AS (SELECT k, ts, SUM(fresh) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM g),
s AS (SELECT k, MIN(ts) AS st, MAX(ts) + 300 AS en FROM n GROUP BY k, sid)
SELECT b.auction, s.st, s.en, b.price, a.price FROM s
JOIN bids b ON b.auction = s.k AND b.ts >= s.st AND b.ts < s.en
JOIN asks a ON a.auction = s.k AND a.ts >= s.st AND a.ts < s.en
WHERE b.price > 800;

-- name: session-window-left-join
-- sink: bidder BIGINT, ws BIGINT, we BIGINT, other BIGINT
INSERT INTO out SELECT a.bidder, window_start, window_end, b.bidder FROM bids a LEFT JOIN bids b
ON b.bidder = a.bidder + 1 AND SESSION(a.ts, INTERVAL '1' SECOND) = SESSION(b.ts, INTERVAL '1' SECOND)
WHERE a.price > 700;
-- duckdb: one table joined with itself: key k's sessions over the left rows of bidder k - 1 and the right rows of bidder k
WITH u AS (SELECT bidder + 1 AS k, ts FROM bids UNION ALL SELECT bidder, ts FROM bids),
g AS (SELECT k, ts, CASE WHEN ts - lag(ts) OVER (PARTITION BY k ORDER BY ts) < 1000 THEN 0 ELSE 1 END AS fresh FROM u),
n AS (SELECT k, ts, SUM(fresh) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM g),
s AS (SELECT k, MIN(ts) AS st, MAX(ts) + 1000 AS en FROM n GROUP BY k, sid)
SELECT a.bidder, s.st, s.en, b.bidder FROM s
JOIN bids a ON a.bidder + 1 = s.k AND a.ts >= s.st AND a.ts < s.en
LEFT JOIN bids b ON b.bidder = s.k AND b.ts >= s.st AND b.ts < s.en
WHERE a.price > 700;

-- Joins of more than two tables: a chain of inner joins, each keyed on its
-- own ON's keys. The later joins are regular ones, whose left rows are
-- joined rows at the latest of their tables' event times.

-- name: three-table-interval-then-regular-join
-- sink: auction BIGINT, bidder BIGINT, seller BIGINT, other BIGINT
SET state_ttl = '300ms';
INSERT INTO out SELECT b.auction, b.bidder, a.seller, c.bidder FROM bids b
JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts + INTERVAL '1' SECOND
JOIN bids c ON c.auction = a.seller WHERE c.price > b.price;
-- duckdb:
SELECT b.auction, b.bidder, a.seller, c.bidder FROM bids b
JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts + 1000
JOIN bids c ON c.auction = a.seller AND abs(c.ts - greatest(a.ts, b.ts)) <= 300 WHERE c.price > b.price;

-- name: four-table-regular-join
-- sink: auction BIGINT, b1 BIGINT, seller BIGINT, b2 BIGINT, s2 BIGINT
SET state_ttl = '1s';
INSERT INTO out SELECT a.auction, a.bidder, c.seller, b.bidder, d.seller FROM bids a
JOIN asks c ON c.auction = a.auction
JOIN bids b ON b.auction = c.seller AND b.channel = a.channel
JOIN asks d ON d.auction = b.auction AND d.price % 7 = c.price % 7
WHERE a.price > 500 AND b.bidder <> a.bidder;
-- duckdb: NULL channels and prices join nothing
SELECT a.auction, a.bidder, c.seller, b.bidder, d.seller FROM bids a
JOIN asks c ON c.auction = a.auction AND abs(c.ts - a.ts) <= 1000
JOIN bids b ON b.auction = c.seller AND b.channel = a.channel AND abs(b.ts - greatest(a.ts, c.ts)) <= 1000
JOIN asks d ON d.auction = b.auction AND d.price % 7 = c.price % 7 AND abs(d.ts - greatest(a.ts, c.ts, b.ts)) <= 1000
WHERE a.price > 500 AND b.bidder <> a.bidder;

-- name: three-table-chain-full-join-deletes
-- key: 1
-- sink: auction BIGINT, bidder BIGINT, seller BIGINT, other BIGINT
SET state_ttl = '300ms';
INSERT INTO out SELECT b.auction, b.bidder, a.seller, c.bidder FROM bids b
JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts + INTERVAL '1' SECOND AND a.price > b.price
FULL JOIN bids c ON c.auction = a.seller;
-- duckdb: the inner join's condition drops its rows before the FULL join sees them
SELECT b.auction, b.bidder, a.seller, c.bidder FROM bids b
JOIN asks a ON a.auction = b.auction AND a.ts BETWEEN b.ts AND b.ts + 1000 AND a.price > b.price
FULL JOIN bids c ON c.auction = a.seller AND abs(c.ts - greatest(a.ts, b.ts)) <= 300;

-- name: three-table-chain-right-join
-- key: 1
-- sink: auction BIGINT, b1 BIGINT, seller BIGINT, b2 BIGINT
SET state_ttl = '500ms';
INSERT INTO out SELECT a.auction, a.bidder, c.seller, b.bidder FROM bids a
JOIN asks c ON c.auction = a.auction
RIGHT JOIN bids b ON b.auction = c.seller AND b.channel = a.channel WHERE b.price > 700;
-- duckdb:
SELECT a.auction, a.bidder, c.seller, b.bidder FROM bids a
JOIN asks c ON c.auction = a.auction AND abs(c.ts - a.ts) <= 500
RIGHT JOIN bids b ON b.auction = c.seller AND b.channel = a.channel AND abs(b.ts - greatest(a.ts, c.ts)) <= 500 WHERE b.price > 700;

-- name: tvf-tumble
-- sink: auction BIGINT, ws BIGINT, we BIGINT, n BIGINT, total BIGINT
INSERT INTO out SELECT auction, window_start, window_end, COUNT(*), SUM(price)
FROM TABLE(TUMBLE(TABLE bids, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE price > 100 GROUP BY window_start, window_end, auction;
-- duckdb:
SELECT auction, ts // 10000 * 10000 AS ws, ts // 10000 * 10000 + 10000, COUNT(*), SUM(price) FROM bids WHERE price > 100 GROUP BY auction, ws;

-- name: tvf-hop-alias
-- sink: channel VARCHAR, ws BIGINT, we BIGINT, hi BIGINT
INSERT INTO out SELECT b.channel, window_start, window_end, MAX(b.price)
FROM TABLE(HOP(TABLE bids, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '6' SECOND)) AS b
GROUP BY b.channel, window_start, window_end;
-- duckdb:
SELECT channel, ts // 2000 * 2000 - k * 2000 AS ws, ts // 2000 * 2000 - k * 2000 + 6000, MAX(price)
FROM bids, range(0, 3) r(k) GROUP BY channel, ws;

-- name: tvf-session
-- sink: bidder BIGINT, ws BIGINT, we BIGINT, n BIGINT
INSERT INTO out SELECT bidder, window_start, window_end, COUNT(*)
FROM TABLE(SESSION(TABLE bids PARTITION BY bidder, DESCRIPTOR(ts), INTERVAL '2' SECOND))
GROUP BY bidder, window_start, window_end;
-- duckdb:
SELECT bidder, MIN(ts), MAX(ts) + 2000, COUNT(*) FROM (
  SELECT *, SUM(CASE WHEN d IS NULL OR d > 2000 THEN 1 ELSE 0 END) OVER (PARTITION BY bidder ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid
  FROM (SELECT *, ts - LAG(ts) OVER (PARTITION BY bidder ORDER BY ts) AS d FROM bids)) GROUP BY bidder, sid;

-- The time queries read ticks (sym VARCHAR, price BIGINT, ts TIMESTAMP(3),
-- WATERMARK FOR ts AS ts - INTERVAL '1' SECOND), ticks_test.go.

-- name: time-extract
-- sink: sym VARCHAR, y BIGINT, mo BIGINT, d BIGINT, h BIGINT, mi BIGINT, s BIGINT, ms BIGINT, dow BIGINT, doy BIGINT, q BIGINT
INSERT INTO out SELECT sym, EXTRACT(YEAR FROM ts), EXTRACT(MONTH FROM ts), EXTRACT(DAY FROM ts), EXTRACT(HOUR FROM ts), EXTRACT(MINUTE FROM ts),
  EXTRACT(SECOND FROM ts), EXTRACT(MILLISECOND FROM ts), EXTRACT(DOW FROM ts), EXTRACT(DOY FROM ts), EXTRACT(QUARTER FROM ts) FROM ticks;

-- name: time-format
-- sink: sym VARCHAR, a VARCHAR, b VARCHAR
INSERT INTO out SELECT sym, DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss.SSS'), DATE_FORMAT(ts, 'dd/MM/yy H''h''') FROM ticks WHERE price > 250;
-- duckdb:
SELECT sym, strftime(ts, '%Y-%m-%d %H:%M:%S.%g'), strftime(ts, '%d/%m/%y %-Hh') FROM ticks WHERE price > 250;

-- name: time-interval-arithmetic
-- sink: sym VARCHAR, a TIMESTAMP, b TIMESTAMP, c BIGINT
INSERT INTO out SELECT sym, ts + INTERVAL '1' MINUTE, ts - INTERVAL '1500 milliseconds', ts - DATE_TRUNC('hour', ts)
FROM ticks WHERE ts < TIMESTAMP '2026-04-01 00:30:00' AND ts + INTERVAL '1' HOUR >= TIMESTAMP '2026-03-31 22:45:00';
-- duckdb:
SELECT sym, ts + INTERVAL '1' MINUTE, ts - INTERVAL '1500 milliseconds', epoch_ms(ts) - epoch_ms(date_trunc('hour', ts))
FROM ticks WHERE ts < TIMESTAMP '2026-04-01 00:30:00' AND ts + INTERVAL '1' HOUR >= TIMESTAMP '2026-03-31 22:45:00';

-- name: time-casts
-- sink: ms BIGINT, back TIMESTAMP, txt VARCHAR, parsed TIMESTAMP, bad TIMESTAMP
INSERT INTO out SELECT CAST(ts AS BIGINT), TO_TIMESTAMP(CAST(ts AS BIGINT) + 1), DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss'),
  CAST(DATE_FORMAT(ts, 'yyyy-MM-dd HH:mm:ss') AS TIMESTAMP), TO_TIMESTAMP(sym) FROM ticks;
-- duckdb:
SELECT epoch_ms(ts), epoch_ms(epoch_ms(ts) + 1), strftime(ts, '%Y-%m-%d %H:%M:%S'),
  CAST(strftime(ts, '%Y-%m-%d %H:%M:%S') AS TIMESTAMP), TRY_CAST(sym AS TIMESTAMP) FROM ticks;

-- name: time-from-bigint
-- sink: auction BIGINT, ts TIMESTAMP, s BIGINT, day VARCHAR
INSERT INTO out SELECT auction, TO_TIMESTAMP(ts), EXTRACT(SECOND FROM TO_TIMESTAMP(ts)), DATE_FORMAT(TO_TIMESTAMP(ts), 'yyyyMMdd') FROM bids WHERE price > 900;
-- duckdb:
SELECT auction, epoch_ms(ts), extract(second FROM epoch_ms(ts)), strftime(epoch_ms(ts), '%Y%m%d') FROM bids WHERE price > 900;

-- name: time-tvf-tumble-timestamp
-- sink: sym VARCHAR, ws TIMESTAMP, we TIMESTAMP, n BIGINT, lo TIMESTAMP, hi TIMESTAMP
INSERT INTO out SELECT sym, window_start, window_end, COUNT(*), MIN(ts), MAX(ts)
FROM TABLE(TUMBLE(TABLE ticks, DESCRIPTOR(ts), INTERVAL '10' MINUTE)) GROUP BY window_start, window_end, sym;
-- duckdb:
SELECT sym, time_bucket(INTERVAL '10 minutes', ts) AS ws, time_bucket(INTERVAL '10 minutes', ts) + INTERVAL '10 minutes', COUNT(*), MIN(ts), MAX(ts)
FROM ticks GROUP BY sym, ws;

-- name: time-hop-trunc-key
-- sink: h TIMESTAMP, ws TIMESTAMP, n BIGINT, total BIGINT
INSERT INTO out SELECT DATE_TRUNC('hour', ts), HOP_START(ts, INTERVAL '5' MINUTE, INTERVAL '15' MINUTE), COUNT(*), SUM(price)
FROM ticks GROUP BY DATE_TRUNC('hour', ts), HOP(ts, INTERVAL '5' MINUTE, INTERVAL '15' MINUTE);
-- duckdb:
SELECT date_trunc('hour', ts) AS h, time_bucket(INTERVAL '5 minutes', ts) - k * INTERVAL '5 minutes' AS ws, COUNT(*), SUM(price)
FROM ticks, range(0, 3) r(k) GROUP BY h, ws;

-- name: time-window-topn-tumble
-- sink: sym VARCHAR, we TIMESTAMP, price BIGINT, ts TIMESTAMP, rk BIGINT
INSERT INTO out SELECT sym, window_end, price, ts, rk FROM (
  SELECT sym, window_end, price, ts, RANK() OVER (PARTITION BY sym, TUMBLE(ts, INTERVAL '10' MINUTE) ORDER BY price DESC NULLS LAST) AS rk FROM ticks
) WHERE rk <= 2;
-- duckdb:
SELECT sym, we, price, ts, rk FROM (
  SELECT sym, time_bucket(INTERVAL '10 minutes', ts) + INTERVAL '10 minutes' AS we, price, ts,
         RANK() OVER (PARTITION BY sym, time_bucket(INTERVAL '10 minutes', ts) ORDER BY price DESC NULLS LAST) AS rk FROM ticks
) WHERE rk <= 2;

-- name: time-window-topn-over-tvf-count
-- sink: ws TIMESTAMP, sym VARCHAR, n BIGINT, rk BIGINT
INSERT INTO out SELECT window_start, sym, n, rk FROM (
  SELECT sym, n, window_start, window_end, DENSE_RANK() OVER (PARTITION BY window_start, window_end ORDER BY n DESC) AS rk
  FROM (SELECT sym, window_start, window_end, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE ticks, DESCRIPTOR(ts), INTERVAL '10' MINUTE))
        GROUP BY sym, window_start, window_end)
) WHERE rk <= 2;
-- duckdb:
SELECT ws, sym, n, rk FROM (
  SELECT sym, n, ws, DENSE_RANK() OVER (PARTITION BY ws ORDER BY n DESC) AS rk
  FROM (SELECT sym, time_bucket(INTERVAL '10 minutes', ts) AS ws, COUNT(*) AS n FROM ticks GROUP BY sym, ws)
) WHERE rk <= 2;

-- name: time-updating-per-day
-- sink: d TIMESTAMP, n BIGINT, last TIMESTAMP, mon BIGINT
-- key: 1
INSERT INTO out SELECT DATE_TRUNC('day', ts), COUNT(*), MAX(ts), MIN(EXTRACT(MONTH FROM ts)) FROM ticks GROUP BY DATE_TRUNC('day', ts);
-- duckdb:
SELECT date_trunc('day', ts), COUNT(*), MAX(ts), MIN(extract(month FROM ts)) FROM ticks GROUP BY date_trunc('day', ts);

-- name: time-interval-join
-- sink: sym VARCHAR, a TIMESTAMP, b TIMESTAMP, gap BIGINT
INSERT INTO out SELECT x.sym, x.ts, y.ts, y.ts - x.ts FROM ticks x JOIN ticks y
  ON x.sym = y.sym AND y.ts BETWEEN x.ts AND x.ts + INTERVAL '90' SECOND WHERE x.price > y.price;
-- duckdb:
SELECT x.sym, x.ts, y.ts, epoch_ms(y.ts) - epoch_ms(x.ts) FROM ticks x JOIN ticks y
  ON x.sym = y.sym AND y.ts BETWEEN x.ts AND x.ts + INTERVAL '90' SECOND WHERE x.price > y.price;

-- name: time-window-join
-- sink: sym VARCHAR, ws TIMESTAMP, we TIMESTAMP, a BIGINT, b BIGINT
INSERT INTO out SELECT x.sym, window_start, window_end, x.price, y.price FROM ticks x JOIN ticks y
  ON x.sym = y.sym AND TUMBLE(x.ts, INTERVAL '2' MINUTE) = TUMBLE(y.ts, INTERVAL '2' MINUTE) WHERE x.price < y.price - 400;
-- duckdb:
SELECT x.sym, time_bucket(INTERVAL '2 minutes', x.ts) AS ws, time_bucket(INTERVAL '2 minutes', x.ts) + INTERVAL '2 minutes', x.price, y.price
FROM ticks x JOIN ticks y ON x.sym = y.sym AND time_bucket(INTERVAL '2 minutes', x.ts) = time_bucket(INTERVAL '2 minutes', y.ts) WHERE x.price < y.price - 400;

-- name: over-rows-sum-avg-count
-- sink: auction BIGINT, ts BIGINT, bidder BIGINT, s BIGINT, a DOUBLE, n BIGINT, m BIGINT
INSERT INTO out SELECT auction, ts, bidder,
  SUM(price) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
  AVG(price) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS BETWEEN 3 PRECEDING AND CURRENT ROW),
  COUNT(price) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS BETWEEN 5 PRECEDING AND CURRENT ROW),
  COUNT(*) OVER (PARTITION BY auction ORDER BY ts, bidder, price, channel ROWS 2 PRECEDING)
FROM bids;

-- name: over-rows-min-max-where
-- sink: channel VARCHAR, ts BIGINT, lo BIGINT, hi BIGINT, spread BIGINT
INSERT INTO out SELECT channel, ts,
  MIN(price) OVER (PARTITION BY channel ORDER BY ts, auction, bidder, price ROWS BETWEEN 9 PRECEDING AND CURRENT ROW),
  MAX(price) OVER (PARTITION BY channel ORDER BY ts, auction, bidder, price ROWS BETWEEN 9 PRECEDING AND CURRENT ROW),
  MAX(price) OVER (PARTITION BY channel ORDER BY ts, auction, bidder, price ROWS BETWEEN 9 PRECEDING AND CURRENT ROW)
    - MIN(price) OVER (PARTITION BY channel ORDER BY ts, auction, bidder, price ROWS BETWEEN 9 PRECEDING AND CURRENT ROW)
FROM bids WHERE auction < 10;

-- name: over-rows-global-current-row
-- sink: ts BIGINT, auction BIGINT, n BIGINT, s BIGINT, p BIGINT
INSERT INTO out SELECT ts, auction,
  COUNT(*) OVER (ORDER BY ts, auction, bidder, price, channel ROWS BETWEEN 4 PRECEDING AND CURRENT ROW),
  SUM(price) OVER (ORDER BY ts, auction, bidder, price, channel ROWS BETWEEN 4 PRECEDING AND CURRENT ROW),
  MAX(price) OVER (ORDER BY ts, auction, bidder, price, channel ROWS BETWEEN CURRENT ROW AND CURRENT ROW)
FROM bids;

-- name: over-ticks-timestamp-order
-- sink: sym VARCHAR, ts TIMESTAMP, lo BIGINT, a DOUBLE, n BIGINT
INSERT INTO out SELECT sym, ts,
  MIN(price) OVER (PARTITION BY sym ORDER BY ts, price ROWS BETWEEN 2 PRECEDING AND CURRENT ROW),
  AVG(price) OVER (PARTITION BY sym ORDER BY ts, price ROWS BETWEEN 6 PRECEDING AND CURRENT ROW),
  COUNT(*) OVER (PARTITION BY sym ORDER BY ts, price ROWS BETWEEN 6 PRECEDING AND CURRENT ROW)
FROM ticks WHERE EXTRACT(HOUR FROM ts) <> 3;

-- name: over-rows-unbounded-running
-- sink: bidder BIGINT, ts BIGINT, s BIGINT, n BIGINT, lo BIGINT, a DOUBLE, last3 BIGINT
INSERT INTO out SELECT bidder, ts,
  SUM(price) OVER (PARTITION BY bidder ORDER BY ts, auction, price, channel ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
  COUNT(*) OVER (PARTITION BY bidder ORDER BY ts, auction, price, channel ROWS UNBOUNDED PRECEDING),
  MIN(price) OVER (PARTITION BY bidder ORDER BY ts, auction, price, channel ROWS UNBOUNDED PRECEDING),
  AVG(price) OVER (PARTITION BY bidder ORDER BY ts, auction, price, channel ROWS UNBOUNDED PRECEDING),
  MAX(price) OVER (PARTITION BY bidder ORDER BY ts, auction, price, channel ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)
FROM bids;

-- name: string-trim-pad
-- sink: a VARCHAR, b VARCHAR, c VARCHAR, d VARCHAR, e VARCHAR, f VARCHAR
INSERT INTO out SELECT TRIM(BOTH 'ae' FROM channel), TRIM(LEADING 'gbf' FROM channel), TRIM(TRAILING 'ek' FROM channel),
  LTRIM(RTRIM(' ' || channel || ' ')), LPAD(channel, 8, '*-'), RPAD(channel, 5, '.')
FROM bids;

-- name: string-replace-position-split
-- sink: bidder BIGINT, r VARCHAR, p BIGINT, q BIGINT, s1 VARCHAR, s2 VARCHAR, rv VARCHAR
INSERT INTO out SELECT bidder, REPLACE(channel, 'o', '0'), POSITION('o' IN channel), STRPOS(channel, 'g'),
  SPLIT_PART(channel, 'o', 2), SPLIT_PART(CAST(auction AS VARCHAR) || '-' || CAST(bidder AS VARCHAR), '-', -1), REVERSE(channel)
FROM bids WHERE bidder < 25;

-- name: string-left-right-repeat-initcap
-- sink: l VARCHAR, r VARCHAR, ln VARCHAR, rn VARCHAR, rep VARCHAR, ic VARCHAR
INSERT INTO out SELECT LEFT(channel, 3), RIGHT(channel, 2), LEFT(channel, -2), RIGHT(channel, -4),
  REPEAT(channel, auction % 3), INITCAP(channel || ' x' || LOWER(UPPER(channel)))
FROM bids;
-- duckdb:
SELECT LEFT(channel, 3), RIGHT(channel, 2), LEFT(channel, -2), RIGHT(channel, -4),
  REPEAT(channel, auction % 3), UPPER(LEFT(channel, 1)) || SUBSTRING(channel, 2) || ' X' || channel
FROM bids;

-- name: like-ilike-escape
-- sink: bidder BIGINT, c VARCHAR, a BOOLEAN, b BOOLEAN, e BOOLEAN, f BOOLEAN
INSERT INTO out SELECT bidder, channel, channel ILIKE '%OO%', channel NOT ILIKE 'A%',
  channel || '_' || CAST(bidder AS VARCHAR) LIKE '%e!_1_' ESCAPE '!',
  CAST(price AS VARCHAR) || '%' NOT LIKE '_5#%' ESCAPE '#'
FROM bids WHERE channel ILIKE '%e%' OR price < 100;

-- name: regexp-match
-- sink: auction BIGINT, c VARCHAR, a BOOLEAN, b BOOLEAN, d BOOLEAN
INSERT INTO out SELECT auction, channel, channel ~ 'o+g', channel ~* '^B.*U$', REGEXP_LIKE(CAST(price AS VARCHAR), '^[1-3][0-9]?$')
FROM bids WHERE channel !~ 'book' AND channel !~* 'APP';
-- duckdb:
SELECT auction, channel, regexp_matches(channel, 'o+g'), regexp_matches(channel, '^B.*U$', 'i'), regexp_matches(CAST(price AS VARCHAR), '^[1-3][0-9]?$')
FROM bids WHERE NOT regexp_matches(channel, 'book') AND NOT regexp_matches(channel, 'APP', 'i');

-- name: math-power-sqrt-log
-- sink: p DOUBLE, q DOUBLE, s DOUBLE, e DOUBLE, l DOUBLE, g DOUBLE, sg BIGINT, pi DOUBLE
INSERT INTO out SELECT POWER(price, 2), POWER(2, auction - 10), SQRT(price), EXP(price / 1000.0), LN(price), LOG10(price * 10),
  SIGN(price - 500), PI() * bidder
FROM bids;

-- name: math-greatest-least-nullif
-- sink: a BIGINT, b BIGINT, c DOUBLE, d BIGINT, e VARCHAR, f VARCHAR
INSERT INTO out SELECT GREATEST(price, bidder * 20), LEAST(price, auction * 50, 300), GREATEST(price / 2.0, bidder, NULL),
  NULLIF(bidder % 5, 0), NULLIF(channel, 'apple'), GREATEST(channel, 'c')
FROM bids;

-- name: math-trunc-sign
-- sink: a DOUBLE, b DOUBLE, c DOUBLE, d BIGINT, e DOUBLE
INSERT INTO out SELECT TRUNC(price / 7.0, 2), TRUNC(price / -3.0), TRUNC(price * 1.5, -2), TRUNC(price), SIGN(50.5 - price)
FROM bids;

-- name: functions-in-window-group
-- sink: k VARCHAR, ws BIGINT, n BIGINT, m DOUBLE, x BIGINT
INSERT INTO out SELECT LPAD(UPPER(LEFT(channel, 2)), 4, '-'), TUMBLE_START(ts, INTERVAL '10' SECOND), COUNT(*),
  MAX(SQRT(price)), GREATEST(MAX(price), 900)
FROM bids WHERE channel IS NOT NULL GROUP BY LPAD(UPPER(LEFT(channel, 2)), 4, '-'), TUMBLE(ts, INTERVAL '10' SECOND);
-- duckdb:
SELECT LPAD(UPPER(LEFT(channel, 2)), 4, '-') AS k, ts // 10000 * 10000 AS ws, COUNT(*), MAX(SQRT(price)), GREATEST(MAX(price), 900)
FROM bids WHERE channel IS NOT NULL GROUP BY k, ws;
