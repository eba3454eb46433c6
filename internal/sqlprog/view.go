package sqlprog

import "fmt"

// A program with View set keeps a materialized view: it reads the rows of
// a GROUP BY without a window (keys..., results...), one per changed key,
// and, where Where (HAVING) holds, stores the SELECT list as a JSON object
// under the record's key in the queryable keyed state View; where it does
// not, it deletes the key's row. It writes no records.

// checkView checks what a view needs: rows in, JSON out, no changelog or
// function call.
func (p *Program) checkView() error {
	switch {
	case p.View == "":
		return nil
	case p.In != FormatRow || p.Out != FormatJSON:
		return fmt.Errorf("view: a view reads rows and keeps JSON (in: row, out: json)")
	case p.Changelog || p.IsCall() || p.Prefix != "":
		return fmt.Errorf("view: a view has no changelog, returns or prefix")
	}
	return nil
}
