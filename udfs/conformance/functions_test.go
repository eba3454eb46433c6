package conformance

import (
	"context"
	"maps"
	"testing"
)

// wantFunctions is each language's function table, written by hand from
// the registrations in its sources: the README's functions, each with the
// kind its SDK registers it as. (Rust's process function is any record
// function, so Rust registers more of them as process.)
var wantFunctions = map[string]map[string]string{
	"go": {
		"upper": "map", "evens": "filter", "split": "flatMap", "tag": "map", "count": "process", "distinct": "process",
		"hold": "process", "cell": "process", "session": "process", "buffer": "flatMap", "q1": "map", "keyedcount": "process",
		"left": "process", "right": "process", "watch": "process", "rule": "process", "price_band": "map", "pick": "map",
		"spread": "aggregate", "series": "map",
	},
	"c": {
		"upper": "map", "evens": "filter", "split": "flatMap", "tag": "map", "count": "process", "distinct": "process",
		"hold": "process", "cell": "process", "session": "process", "buffer": "flatMap", "q1": "map", "keyedcount": "process",
		"left": "process", "right": "process", "watch": "process", "rule": "process", "price_band": "map", "pick": "map",
		"spread": "aggregate", "series": "map",
	},
	"rust": {
		"upper": "map", "evens": "filter", "split": "process", "tag": "process", "count": "process", "distinct": "process",
		"hold": "process", "cell": "process", "session": "process", "buffer": "process", "q1": "map", "keyedcount": "process",
		"left": "process", "right": "process", "watch": "process", "rule": "process", "price_band": "map", "pick": "map",
		"spread": "aggregate", "series": "map",
	},
	"as": {
		"upper": "map", "evens": "filter", "split": "flatMap", "tag": "map", "count": "process", "distinct": "process",
		"hold": "process", "cell": "process", "session": "process", "buffer": "flatMap", "q1": "map", "keyedcount": "process",
		"left": "process", "right": "process", "watch": "process", "rule": "process", "price_band": "map", "pick": "map",
		"spread": "aggregate", "series": "map",
	},
}

// TestFunctionTable checks that every SDK lists the functions its module
// registers, with their kinds, through floe_functions, the table the
// scheduler checks a job spec's functions against at submit.
func TestFunctionTable(t *testing.T) {
	for _, lang := range only() {
		t.Run(lang, func(t *testing.T) {
			fns, ok, err := module(t, lang).Functions(context.Background())
			if err != nil || !ok {
				t.Fatalf("Functions: %v, %v; want the module's table", ok, err)
			}
			if !maps.Equal(fns, wantFunctions[lang]) {
				t.Errorf("function table\n got %v\nwant %v", fns, wantFunctions[lang])
			}
		})
	}
}
