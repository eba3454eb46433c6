package sqlprog

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// strictJSON decodes s into v, refusing unknown fields and trailing data.
func strictJSON(s string, v any) error {
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("not a SQL program: %w", err)
	}
	if d.More() {
		return fmt.Errorf("not a SQL program: data after the JSON object")
	}
	return nil
}

// marshal returns v's JSON without HTML escapes, which a spec has no use
// for (a > stays a >).
func marshal(v any) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v) // NB: programs hold nothing JSON cannot encode
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
