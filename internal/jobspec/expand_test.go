package jobspec

import (
	"reflect"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	values := map[string]string{"a": "1", "b.c": "2", "d-e_f": "3", "empty": ""}
	lookup := func(name string) (string, bool) { v, ok := values[name]; return v, ok }
	tests := []struct {
		in          string
		want        string
		wantMissing []string
		wantErr     string
	}{
		{in: "plain", want: "plain"},
		{in: "${a}", want: "1"},
		{in: "x${a}y${b.c}z${d-e_f}", want: "x1y2z3"},
		{in: "[${empty}]", want: "[]"},
		{in: "$${a}", want: "${a}"},
		{in: "$$${a}", want: "$${a}"},
		{in: "$a $ {a} $$ $", want: "$a $ {a} $$ $"},
		{in: "${nope}-${a}-${other}", want: "-1-", wantMissing: []string{"nope", "other"}},
		{in: "${a", wantErr: `unterminated "${a"`},
		{in: "${a/b}", wantErr: `invalid parameter reference "${a/b}"`},
	}
	for _, tt := range tests {
		got, missing, err := expand(tt.in, lookup)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("expand(%q): error %v, want %q", tt.in, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("expand(%q): %v", tt.in, err)
		case got != tt.want || !reflect.DeepEqual(missing, tt.wantMissing):
			t.Errorf("expand(%q) = %q, %q; want %q, %q", tt.in, got, missing, tt.want, tt.wantMissing)
		}
	}
}
