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
