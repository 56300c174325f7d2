package jtrace

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"
)

// Object is a JSON object that keeps its keys in the order given. Go maps have no order (they
// are captured with their keys sorted, as encoding/json writes them); use Object where the order
// a reader sees matters.
type Object []Field

// Field is one key of an Object.
type Field struct {
	Key   string
	Value any
}

// missing is a value left out (a function, a channel), as JSON.stringify leaves out undefined.
type missingValue struct{}

var missing = missingValue{}

type walk struct {
	ancestors  []uintptr
	flagKey    func(string) bool
	flagged    bool
	valuesLeft int
	charsLeft  int
	// tooDeep: a container sat below the depth the server accepts (9.1), so the payload cannot be
	// sent whole. unreadable: a value could not be read, so the payload is [UNCAPTURABLE].
	tooDeep, unreadable bool
}

// capture copies a host value into a JSON tree the server accepts (protocol 9.1), within a
// budget of values and characters: past it, or deeper than the envelope leaves room for, the copy
// is [PAYLOAD_TOO_LARGE], which it would become at fitting or be refused for anyway
// (sdk/too-deep-payload). A value that cannot be read (a MarshalJSON that fails or panics) makes
// the whole copy [UNCAPTURABLE] (sdk/uncapturable-payload), as the Node SDK does for a throwing
// getter. The host's value is only read. flagged: flagKey held for some key.
func capture(value any, maxValues int, flagKey func(string) bool) (result any, flagged bool) {
	w := &walk{flagKey: flagKey, valuesLeft: maxValues, charsLeft: maxValues * 2}
	defer func() {
		// A host type whose reading panics (a MarshalJSON, a String) costs the payload, never the host.
		if recover() != nil {
			result, flagged = markerUncapturable, w.flagged
		}
	}()
	captured := w.value(reflect.ValueOf(value), value, 2)
	if w.unreadable {
		return markerUncapturable, w.flagged
	}
	if w.valuesLeft < 0 || w.tooDeep {
		return markerTooLarge, w.flagged
	}
	return captured, w.flagged
}

var (
	timeType   = reflect.TypeOf(time.Time{})
	errorType  = reflect.TypeOf((*error)(nil)).Elem()
	marshaler  = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	objectType = reflect.TypeOf(Object(nil))
)

func (w *walk) text(s string) any {
	if len(s)*2 > maxStringUnits {
		// Cut as JavaScript cuts the same text: a lone surrogate is one unit there (three bytes
		// here), and U+0000 is removed only after cutting.
		if !utf8.ValidString(s) {
			s = wellFormed(s)
		}
		s = truncateString(s, maxStringUnits)
	}
	s = storable(s, false)
	w.charsLeft -= len(s)
	if w.charsLeft < 0 {
		w.valuesLeft = -1
		return missing
	}
	return s
}

func number(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

func integer(i int64) any {
	if i > maxSafeInteger || i < minSafeInteger {
		return strconv.FormatInt(i, 10)
	}
	return i
}

func (w *walk) value(v reflect.Value, raw any, level int) (out any) {
	w.valuesLeft--
	if w.valuesLeft < 0 {
		return missing
	}
	if !v.IsValid() {
		return nil
	}
	// The common shapes first, without reflection's cost.
	switch x := raw.(type) {
	case string:
		return w.text(x)
	case bool:
		return x
	case int:
		return integer(int64(x))
	case int64:
		return integer(x)
	case float64:
		return number(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return integer(i)
		}
		if f, err := x.Float64(); err == nil {
			return number(f)
		}
		return w.text(string(x))
	case time.Time:
		return x.UTC().Format("2006-01-02T15:04:05.000Z")
	case time.Duration:
		return x.String()
	case []byte:
		return fmt.Sprintf("[[]byte: %d bytes]", len(x))
	case Object:
		if x == nil {
			return nil
		}
		if len(x) == 0 {
			return w.container(v, level, func(func(string, reflect.Value, any) bool) {})
		}
		// An Object is a slice: the same one met inside itself shares its first field's address.
		p := reflect.ValueOf(&x[0]).Pointer()
		if w.seen(p) {
			return markerCircular
		}
		return w.withAncestor(p, func() any {
			return w.container(v, level, func(emit func(string, reflect.Value, any) bool) {
				for _, f := range x {
					if !emit(f.Key, reflect.ValueOf(f.Value), f.Value) {
						return
					}
				}
			})
		})
	case map[string]any:
		if x == nil {
			return nil
		}
		if w.seen(v.Pointer()) {
			return markerCircular
		}
		return w.withAncestor(v.Pointer(), func() any {
			return w.container(v, level, func(emit func(string, reflect.Value, any) bool) {
				for _, k := range sortedKeys(x) {
					if !emit(k, reflect.ValueOf(x[k]), x[k]) {
						return
					}
				}
			})
		})
	case *big.Int:
		if x == nil {
			return nil
		}
		if x.IsInt64() {
			return integer(x.Int64())
		}
		return x.String()
	case []any:
		if x == nil {
			return nil
		}
		if len(x) > 0 && w.seen(v.Pointer()) {
			return markerCircular
		}
		return w.withAncestor(v.Pointer(), func() any {
			return w.list(v, level, len(x), func(i int) (reflect.Value, any) { return reflect.ValueOf(x[i]), x[i] })
		})
	case error:
		return w.container(v, level, func(emit func(string, reflect.Value, any) bool) {
			name := errorName(x)
			if emit("name", reflect.ValueOf(name), name) {
				message := x.Error()
				emit("message", reflect.ValueOf(message), message)
			}
		})
	}
	switch v.Kind() {
	case reflect.String:
		return w.text(v.String())
	case reflect.Bool:
		return v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return integer(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := v.Uint()
		if u > maxSafeInteger {
			return strconv.FormatUint(u, 10)
		}
		return int64(u)
	case reflect.Float32, reflect.Float64:
		return number(v.Float())
	case reflect.Func, reflect.Chan, reflect.UnsafePointer:
		return missing
	case reflect.Complex64, reflect.Complex128:
		return w.text(fmt.Sprint(v.Complex()))
	case reflect.Interface:
		if v.IsNil() {
			return nil
		}
		w.valuesLeft++
		return w.value(v.Elem(), v.Elem().Interface(), level)
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		if v.Type().Implements(marshaler) && !v.Elem().Type().Implements(marshaler) {
			return w.marshaled(v, level)
		}
		if w.seen(v.Pointer()) {
			return markerCircular
		}
		w.ancestors = append(w.ancestors, v.Pointer())
		defer func() { w.ancestors = w.ancestors[:len(w.ancestors)-1] }()
		w.valuesLeft++
		elem := v.Elem()
		return w.value(elem, elem.Interface(), level)
	}
	if v.Type().Implements(marshaler) {
		return w.marshaled(v, level)
	}
	switch v.Kind() {
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		if w.seen(v.Pointer()) {
			return markerCircular
		}
		keys := v.MapKeys()
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = keyText(k)
		}
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		sort.Slice(order, func(a, b int) bool { return names[order[a]] < names[order[b]] })
		return w.withAncestor(v.Pointer(), func() any {
			return w.container(v, level, func(emit func(string, reflect.Value, any) bool) {
				for _, i := range order {
					item := v.MapIndex(keys[i])
					if !emit(names[i], item, item.Interface()) {
						return
					}
				}
			})
		})
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return fmt.Sprintf("[[]byte: %d bytes]", v.Len())
		}
		if w.seen(v.Pointer()) && v.Len() > 0 {
			return markerCircular
		}
		return w.withAncestor(v.Pointer(), func() any {
			return w.list(v, level, v.Len(), func(i int) (reflect.Value, any) { item := v.Index(i); return item, item.Interface() })
		})
	case reflect.Array:
		return w.list(v, level, v.Len(), func(i int) (reflect.Value, any) { item := v.Index(i); return item, item.Interface() })
	case reflect.Struct:
		return w.container(v, level, func(emit func(string, reflect.Value, any) bool) { w.structFields(v, emit) })
	}
	return w.text(fmt.Sprint(raw))
}

// unreadableValue notes a value that cannot be read and stops the walk: the payload is replaced
// whatever else it holds.
func (w *walk) unreadableValue() any {
	w.unreadable = true
	w.valuesLeft = -1
	return missing
}

// tooDeepValue notes a container below the accepted depth and stops the walk.
func (w *walk) tooDeepValue() any {
	w.tooDeep = true
	w.valuesLeft = -1
	return missing
}

func (w *walk) seen(p uintptr) bool {
	for _, a := range w.ancestors {
		if a == p {
			return true
		}
	}
	return false
}

func (w *walk) withAncestor(p uintptr, f func() any) any {
	w.ancestors = append(w.ancestors, p)
	defer func() { w.ancestors = w.ancestors[:len(w.ancestors)-1] }()
	return f()
}

func (w *walk) container(v reflect.Value, level int, members func(emit func(string, reflect.Value, any) bool)) any {
	if level >= maxDepth {
		return w.tooDeepValue()
	}
	out := newObject(4)
	members(func(key string, item reflect.Value, raw any) bool {
		if out.len() >= maxWidth || w.valuesLeft < 0 {
			return false
		}
		captured := w.value(item, raw, level+1)
		if captured == missing {
			return w.valuesLeft >= 0
		}
		name := storable(key, false)
		if w.flagKey != nil && !w.flagged && w.flagKey(name) {
			w.flagged = true
		}
		out.set(name, captured)
		return true
	})
	return out
}

func (w *walk) list(v reflect.Value, level, n int, at func(int) (reflect.Value, any)) any {
	if level >= maxDepth {
		return w.tooDeepValue()
	}
	if n > maxWidth {
		n = maxWidth
	}
	items := make([]any, 0, n)
	for i := 0; i < n && w.valuesLeft >= 0; i++ {
		item, raw := at(i)
		captured := w.value(item, raw, level+1)
		if captured == missing {
			captured = nil
		}
		items = append(items, captured)
	}
	return items
}
