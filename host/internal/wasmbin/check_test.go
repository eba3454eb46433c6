package wasmbin

import (
	"errors"
	"strings"
	"testing"
)

// section appends a section with a count and body.
func appendSection(b []byte, id byte, count uint32, body ...byte) []byte {
	body = append(appendU32(nil, count), body...)
	return append(appendU32(append(b, id), uint32(len(body))), body...)
}

// customSection appends a custom section.
func customSection(b []byte, name string, body []byte) []byte {
	body = append(appendName(nil, name), body...)
	return append(appendU32(append(b, secCustom), uint32(len(body))), body...)
}

func TestCheckRefusesWhatWouldAllocateBeyondTheModule(t *testing.T) {
	header := []byte("\x00asm\x01\x00\x00\x00")
	huge := appendU32(nil, 4_000_000_000)
	for _, tc := range []struct {
		name string
		wasm []byte
		want string
	}{
		{"results", appendSection(header, secType, 1, append(append([]byte{0x60, 1, i32}, huge...), i32)...),
			"declares 4000000000 results in the type section, more than the limit of 1000"},
		{"params beyond the room", appendSection(header, secType, 1, 0x60, 0xc8, 0x01, i32, 0),
			"declares 200 parameters in the type section, which has room for at most 2"},
		{"types", appendSection(header, secType, 4_000_000), "declares 4000000 types"},
		{"imports", appendSection(header, secImport, 50_000, 1, 'a', 1, 'b', 0, 0), "declares 50000 imports in the import section, which has room for at most 1"},
		{"locals", appendSection(header, secCode, 1, append(append([]byte{7, 1}, huge...), i32, opEnd)...),
			"declares 4000000000 locals in one function in the code section, more than the limit of 50000"},
		{"locals adding up", appendSection(header, secCode, 1, 10, 2, 0xb0, 0xea, 0x01, i32, 0xb0, 0xea, 0x01, i32, opEnd),
			"declares 60000 locals in one function"},
		{"table", appendSection(header, secTable, 1, append([]byte{0x70, 0}, huge...)...), "declares 4000000000 table entries"},
		{"element vector", appendSection(header, secElement, 1, append([]byte{1, 0}, huge...)...), "declares 4000000000 elements"},
		{"function names", customSection(header, "name", append([]byte{1, 4}, append(appendU32(nil, 1_000_000), 0)...)),
			"declares 1000000 names in the custom section, which has room for at most 0"},
		{"data count", appendSection(header, secDataCount, 1<<31), "declares 2147483648 data segments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.wasm)
			var le *LimitError
			if !errors.As(err, &le) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a *LimitError saying %q", err, tc.want)
			}
		})
	}
}

func TestCheckPassesModulesWithinTheLimits(t *testing.T) {
	for _, wasm := range [][]byte{
		assemble(count, doubling, ping, pong, spin),
		spectestModule(),
		nil,                   // not a module: for wazero to report
		[]byte("\x00asm\x01"), // truncated: likewise
	} {
		if err := Check(wasm); err != nil {
			t.Errorf("Check: %v", err)
		}
	}
}
