package udf

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"
)

// maxFunctionTable bounds the function table a guest may return.
const maxFunctionTable = 1 << 20

// Functions returns the functions the module registers, name to kind, as
// its floe_functions export lists them; ok is false for a module that
// exports no table (built with an older SDK), whose functions are known
// only when an operator opens one. It runs the module's start function in
// a fresh instance, bounded like any call, and closes the instance.
func (m *Module) Functions(ctx context.Context) (fns map[string]string, ok bool, err error) {
	in, err := m.instantiate(ctx, InstanceConfig{CallTimeout: DefaultCallTimeout, Now: time.Now, OperatorState: NewOperatorLists()})
	if err != nil {
		return nil, false, err
	}
	defer in.mod.Close(context.Background())
	if in.functions == nil {
		return nil, false, nil
	}
	if err := in.call(ctx, in.functions, "floe_functions", -1); err != nil {
		return nil, false, err
	}
	ptr, n := uint32(in.stack[0]>>32), uint32(in.stack[0])
	if n > maxFunctionTable {
		return nil, false, in.wrap("floe_functions", -1, fmt.Errorf("returned a function table of %d bytes, more than the %d allowed", n, maxFunctionTable), nil)
	}
	b, inside := in.mem.Read(ptr, n)
	if !inside {
		return nil, false, in.wrap("floe_functions", -1, fmt.Errorf("returned a function table outside its memory"), nil)
	}
	fns, err = decodeTable(b)
	if err != nil {
		return nil, false, in.wrap("floe_functions", -1, err, nil)
	}
	return fns, true, nil
}

// decodeTable reads a function table, laid out like the parameter block:
// u32 count, then count × {u32 name_len, name, u32 kind_len, kind}.
func decodeTable(b []byte) (map[string]string, error) {
	next := func() (string, error) {
		if len(b) < 4 {
			return "", fmt.Errorf("function table cut short")
		}
		n := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if uint32(len(b)) < n {
			return "", fmt.Errorf("function table cut short")
		}
		s := string(b[:n])
		b = b[n:]
		return s, nil
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("function table cut short")
	}
	count := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if uint64(count)*8 > uint64(len(b)) {
		return nil, fmt.Errorf("function table says %d functions in %d bytes", count, len(b))
	}
	fns := make(map[string]string, count)
	for range count {
		name, err := next()
		if err != nil {
			return nil, err
		}
		kind, err := next()
		if err != nil {
			return nil, err
		}
		if _, dup := fns[name]; dup {
			return nil, fmt.Errorf("function table lists %q twice", name)
		}
		fns[name] = kind
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("function table has %d bytes after its last function", len(b))
	}
	return fns, nil
}
