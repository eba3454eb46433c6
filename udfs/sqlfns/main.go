// Command sqlfns holds scalar functions for Floe's stream SQL
// (docs/sql.md, "Wasm functions"), declared in a script as
//
//	CREATE FUNCTION price_band(price BIGINT) RETURNS VARCHAR LANGUAGE wasm AS 'sqlfns.wasm';
//	CREATE FUNCTION scaled(price BIGINT, factor DOUBLE) RETURNS DOUBLE LANGUAGE wasm AS 'sqlfns.wasm';
//	CREATE FUNCTION tag(channel VARCHAR, bidder BIGINT) RETURNS VARCHAR LANGUAGE wasm AS 'sqlfns.wasm';
//
// aggregate functions (aggregates.go)
//
//	CREATE AGGREGATE spread(x BIGINT) (RETURNS = BIGINT, MODULE = 'sqlfns.wasm');
//	CREATE AGGREGATE count_above(x BIGINT, floor BIGINT) (RETURNS = BIGINT, MODULE = 'sqlfns.wasm');
//
// and a table function (also aggregates.go)
//
//	CREATE FUNCTION series(n BIGINT, s VARCHAR) RETURNS TABLE (i BIGINT, tag VARCHAR) LANGUAGE wasm AS 'sqlfns.wasm';
//
// Each scalar function returns NULL when an argument is NULL, as SQL's
// built-in functions do; the aggregates skip NULLs, as the built-in ones do;
// the SQL oracle (tests/sqloracle) checks them all against the same
// expressions, aggregates and unnests in DuckDB.
package main

import (
	"strconv"

	floe "github.com/floe-stream/floe/sdk/go"
)

func init() {
	// price_band is 'low' under 100, 'mid' under 700, else 'high'.
	floe.SQLFunction("price_band", func(a []floe.SQLValue) (floe.SQLValue, error) {
		switch {
		case a[0].IsNull():
			return floe.SQLValue{}, nil
		case a[0].Int < 100:
			return floe.SQLString("low"), nil
		case a[0].Int < 700:
			return floe.SQLString("mid"), nil
		}
		return floe.SQLString("high"), nil
	})
	// scaled is price × factor.
	floe.SQLFunction("scaled", func(a []floe.SQLValue) (floe.SQLValue, error) {
		if a[0].IsNull() || a[1].IsNull() {
			return floe.SQLValue{}, nil
		}
		return floe.SQLFloat(float64(a[0].Int) * a[1].Float), nil
	})
	// tag is channel || '#' || bidder.
	floe.SQLFunction("tag", func(a []floe.SQLValue) (floe.SQLValue, error) {
		if a[0].IsNull() || a[1].IsNull() {
			return floe.SQLValue{}, nil
		}
		return floe.SQLString(a[0].Str + "#" + strconv.FormatInt(a[1].Int, 10)), nil
	})
}

func main() {}
