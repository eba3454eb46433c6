package sqlc

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v6"
)

// The Flink syntax that PostgreSQL's grammar lacks is rewritten before
// parsing, at the level of pg_query's tokens, never by a grammar of our
// own: a clause PostgreSQL cannot parse is blanked out (its bytes become
// spaces, its newlines stay), so that every token left keeps its byte
// offset and an error still points at the user's line and column. What a
// blanked clause said is kept in flinkSyntax for the compiler to apply.
//
//   - CREATE TABLE t (..., WATERMARK FOR ts AS ts - INTERVAL '5' SECOND)
//     loses the WATERMARK element (and its comma); flinkSyntax.watermarks
//     holds its column and expression, by the offset of the table's name.
//   - FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))
//     becomes FROM TUMBLE(t, ts, INTERVAL '10' SECOND), which PostgreSQL
//     parses as a function in FROM; flinkSyntax.tvfs marks the call's
//     offset, so that only a rewritten call is taken for a window. HOP
//     and SESSION alike; SESSION's PARTITION BY k is blanked and its
//     columns kept in the tvf.
//   - CREATE TABLE t (..., p AS PROCTIME()) loses the computed column;
//     flinkSyntax.proctimes holds its name, by the table name's offset.
//   - PRIMARY KEY (k) NOT ENFORCED loses NOT ENFORCED: PostgreSQL parses
//     the key (upsert.go).

// flinkSyntax is what the rewrite took out of the script.
type flinkSyntax struct {
	// watermarks holds each WATERMARK FOR clause by the offset of its
	// table's name.
	watermarks map[int]ddlWatermark
	// tvfs holds each window TVF by the offset of its function's name.
	tvfs map[int]windowTVF
	// proctimes holds each computed column p AS PROCTIME() by the offset
	// of its table's name.
	proctimes map[int]procTime
}

// procTime is a column p AS PROCTIME(): processing time, for windows.
type procTime struct {
	col string
	at  int
}

// ddlWatermark is a WATERMARK FOR col AS expr clause.
type ddlWatermark struct {
	col   string
	colAt int
	// exprAt and exprEnd delimit the expression in the script.
	exprAt, exprEnd int
}

// windowTVF is a window table-valued function's call.
type windowTVF struct {
	// partition names the columns of SESSION's PARTITION BY, and
	// partitionAt is the offset of PARTITION.
	partition   []string
	partitionAt int
}

// token is one of pg_query's tokens and its text.
type token struct {
	tok        pg.Token
	start, end int
	text       string // lower case, unless quoted
}

// rewrite returns src with the Flink clauses blanked and what they said.
// A script the scanner refuses is returned as it is, for the parser to
// report.
func rewrite(src string) (string, flinkSyntax, error) {
	fs := flinkSyntax{watermarks: map[int]ddlWatermark{}, tvfs: map[int]windowTVF{}, proctimes: map[int]procTime{}}
	res, err := pg.Scan(src)
	if err != nil {
		return src, fs, nil
	}
	var toks []token
	for _, t := range res.Tokens {
		if t.Token == pg.Token_SQL_COMMENT || t.Token == pg.Token_C_COMMENT {
			continue
		}
		text := src[t.Start:t.End]
		if strings.HasPrefix(text, `"`) {
			text = strings.ReplaceAll(text[1:len(text)-1], `""`, `"`)
		} else {
			text = strings.ToLower(text)
		}
		toks = append(toks, token{t.Token, int(t.Start), int(t.End), text})
	}
	out := []byte(src)
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	// tableAt is the offset of the name of the CREATE TABLE whose column
	// list the scan is in, or -1; depth counts its parentheses.
	tableAt, depth := -1, 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case tableAt >= 0 && t.tok == pg.Token_ASCII_40:
			depth++
		case tableAt >= 0 && t.tok == pg.Token_ASCII_41:
			if depth--; depth == 0 {
				tableAt = -1
			}
		case t.tok == pg.Token_ASCII_59: // ;
			tableAt, depth = -1, 0
		case tableAt >= 0 && t.tok == pg.Token_NOT && i+1 < len(toks) && toks[i+1].text == "enforced":
			// PRIMARY KEY (...) NOT ENFORCED: Flink's keys are never
			// enforced, and Floe's neither; the key stays.
			blank(t.start, toks[i+1].end)
			i++
		case t.tok == pg.Token_TABLE && i > 0 && toks[i-1].tok == pg.Token_CREATE && i+1 < len(toks):
			name := i + 1
			if toks[name].tok == pg.Token_IF_P && name+3 < len(toks) { // IF NOT EXISTS
				name += 3
			}
			tableAt = toks[name].start
		case t.text == "watermark" && tableAt >= 0 && depth == 1 && toks[i-1].tok == pg.Token_ASCII_44:
			w, end, err := watermarkClause(src, toks, i)
			if err != nil {
				return src, fs, err
			}
			if _, dup := fs.watermarks[tableAt]; dup {
				return src, fs, errAt(src, t.start, "a table has one WATERMARK")
			}
			fs.watermarks[tableAt] = w
			blank(toks[i-1].start, toks[end-1].end)
			i = end - 1
		case tableAt >= 0 && depth == 1 && isProcTime(toks, i):
			if _, dup := fs.proctimes[tableAt]; dup {
				return src, fs, errAt(src, t.start, "a table has one PROCTIME() column")
			}
			fs.proctimes[tableAt] = procTime{col: t.text, at: t.start}
			from, to := toks[i].start, toks[i+4].end
			if toks[i-1].tok == pg.Token_ASCII_44 {
				from = toks[i-1].start
			} else if toks[i+5].tok == pg.Token_ASCII_44 {
				to = toks[i+5].end
			}
			blank(from, to)
			i += 4
		case t.tok == pg.Token_TABLE && isTVF(toks, i):
			tvf, err := tvfCall(src, toks, i, blank)
			if err != nil {
				return src, fs, err
			}
			fs.tvfs[toks[i+2].start] = tvf
		}
	}
	return string(out), fs, nil
}

// watermarkClause reads WATERMARK FOR col AS expr from toks[i]; end is the
// index of the token after it (the , or ) that ends the element).
func watermarkClause(src string, toks []token, i int) (ddlWatermark, int, error) {
	if i+4 >= len(toks) || toks[i+1].tok != pg.Token_FOR || toks[i+3].tok != pg.Token_AS {
		return ddlWatermark{}, 0, errAt(src, toks[i].start, "want WATERMARK FOR column AS column [- INTERVAL '5' SECOND]")
	}
	w := ddlWatermark{col: toks[i+2].text, colAt: toks[i+2].start, exprAt: toks[i+4].start}
	depth := 0
	for end := i + 4; end < len(toks); end++ {
		switch toks[end].tok {
		case pg.Token_ASCII_40:
			depth++
		case pg.Token_ASCII_41, pg.Token_ASCII_44:
			if depth == 0 {
				w.exprEnd = toks[end-1].end
				return w, end, nil
			}
			if toks[end].tok == pg.Token_ASCII_41 {
				depth--
			}
		}
	}
	return ddlWatermark{}, 0, errAt(src, toks[i].start, "the WATERMARK clause does not end: want it inside CREATE TABLE's parentheses")
}

// isProcTime reports whether toks[i] starts a column list's element
// name AS PROCTIME().
func isProcTime(toks []token, i int) bool {
	return i > 0 && i+5 < len(toks) && (toks[i-1].tok == pg.Token_ASCII_44 || toks[i-1].tok == pg.Token_ASCII_40) &&
		toks[i+1].tok == pg.Token_AS && toks[i+2].text == "proctime" && toks[i+3].tok == pg.Token_ASCII_40 &&
		toks[i+4].tok == pg.Token_ASCII_41 && (toks[i+5].tok == pg.Token_ASCII_44 || toks[i+5].tok == pg.Token_ASCII_41)
}

// windowTVFs maps the name of a Flink window TVF to its group window.
var windowTVFs = map[string]string{"tumble": "tumble", "hop": "hop", "session": "session"}

// isTVF reports whether toks[i] starts TABLE(TUMBLE(, TABLE(HOP( or
// TABLE(SESSION(.
func isTVF(toks []token, i int) bool {
	return i+3 < len(toks) && toks[i+1].tok == pg.Token_ASCII_40 && windowTVFs[toks[i+2].text] != "" &&
		toks[i+3].tok == pg.Token_ASCII_40
}

// tvfCall blanks TABLE(NAME(TABLE t [PARTITION BY k, ...], DESCRIPTOR(ts), ...))
// to NAME(t, ts, ...), starting at toks[i].
func tvfCall(src string, toks []token, i int, blank func(from, to int)) (windowTVF, error) {
	name := strings.ToUpper(toks[i+2].text)
	usage := map[string]string{
		"TUMBLE":  "TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND))",
		"HOP":     "TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND))",
		"SESSION": "TABLE(SESSION(TABLE t PARTITION BY k, DESCRIPTOR(ts), INTERVAL '30' SECOND))",
	}[name]
	bad := func() (windowTVF, error) {
		return windowTVF{}, errAt(src, toks[i].start, "want %s", usage)
	}
	j := i + 4
	if j+1 >= len(toks) || toks[j].tok != pg.Token_TABLE {
		return bad()
	}
	var tvf windowTVF
	blank(toks[i].start, toks[i+1].end)
	blank(toks[j].start, toks[j].end)
	j += 2
	if j+1 < len(toks) && toks[j].tok == pg.Token_PARTITION && toks[j+1].tok == pg.Token_BY {
		tvf.partitionAt = toks[j].start
		k := j + 2
		for k < len(toks) && (toks[k].tok != pg.Token_ASCII_44 || k+1 >= len(toks) || toks[k+1].text != "descriptor") {
			if toks[k].tok != pg.Token_ASCII_44 {
				tvf.partition = append(tvf.partition, toks[k].text)
			}
			k++
		}
		blank(toks[j].start, toks[k-1].end)
		j = k
	}
	if name == "SESSION" && tvf.partition == nil {
		return windowTVF{}, errAt(src, toks[i].start, "a SESSION window is per key: want %s", usage)
	}
	if name != "SESSION" && tvf.partition != nil {
		return windowTVF{}, errAt(src, tvf.partitionAt, "PARTITION BY is for SESSION only: %s groups by window_start, window_end and the keys", name)
	}
	if j+4 >= len(toks) || toks[j].tok != pg.Token_ASCII_44 || toks[j+1].text != "descriptor" ||
		toks[j+2].tok != pg.Token_ASCII_40 || toks[j+4].tok != pg.Token_ASCII_41 {
		return bad()
	}
	blank(toks[j+1].start, toks[j+2].end)
	blank(toks[j+4].start, toks[j+4].end)
	depth := 0
	for k := i + 3; k < len(toks); k++ {
		switch toks[k].tok {
		case pg.Token_ASCII_40:
			depth++
		case pg.Token_ASCII_41:
			depth--
			if depth == 0 {
				if k+1 >= len(toks) || toks[k+1].tok != pg.Token_ASCII_41 {
					return bad()
				}
				blank(toks[k+1].start, toks[k+1].end)
				return tvf, nil
			}
		}
	}
	return bad()
}
