package sqloracle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/floe-stream/floe/internal/wasmbuild"
)

// The Wasm functions every corpus query may call: udfs/sqlfns, built from
// its Go sources for the run. DuckDB's side of a query that calls one
// spells out the same function as an expression.
const functionDecls = `CREATE FUNCTION price_band(price BIGINT) RETURNS VARCHAR LANGUAGE wasm AS '%[1]s';
CREATE FUNCTION scaled(price BIGINT, factor DOUBLE) RETURNS DOUBLE LANGUAGE wasm AS '%[1]s';
CREATE FUNCTION tag(channel VARCHAR, bidder BIGINT) RETURNS VARCHAR LANGUAGE wasm AS '%[1]s';
CREATE AGGREGATE spread(x BIGINT) (RETURNS = BIGINT, MODULE = '%[1]s');
CREATE AGGREGATE count_above(x BIGINT, floor BIGINT) (RETURNS = BIGINT, MODULE = '%[1]s');
CREATE FUNCTION series(n BIGINT, s VARCHAR) RETURNS TABLE (i BIGINT, tag VARCHAR) LANGUAGE wasm AS '%[1]s';
`

// sqlFunctions is the module of the corpus's functions.
type sqlFunctions struct {
	path string
	wasm []byte
}

// buildFunctions builds udfs/sqlfns into dir.
func buildFunctions(dir string) (*sqlFunctions, error) {
	root, err := wasmbuild.RepoRoot()
	if err != nil {
		return nil, err
	}
	path, err := wasmbuild.Go(filepath.Join(root, "udfs", "sqlfns"), dir)
	if err != nil {
		return nil, err
	}
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return &sqlFunctions{path: path, wasm: wasm}, nil
}

// decls returns the CREATE FUNCTIONs of the corpus's functions.
func (f *sqlFunctions) decls() string { return fmt.Sprintf(functionDecls, f.path) }

// modules returns the upload of a spec that calls the functions, or nil
// for one that calls none.
func (f *sqlFunctions) modules(spec []byte) map[string][]byte {
	if !strings.Contains(string(spec), "\nmodules:\n") {
		return nil
	}
	return map[string][]byte{"sqlfns": f.wasm}
}
