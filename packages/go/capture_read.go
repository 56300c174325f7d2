package jtrace

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// How the capture walk reads Go types it does not copy member by member: a type's own
// MarshalJSON, struct fields as encoding/json names them, map keys, an error's name.

// marshaled reads a type through its own MarshalJSON, keeping the order of the keys it writes.
func (w *walk) marshaled(v reflect.Value, level int) any {
	data, err := v.Interface().(json.Marshaler).MarshalJSON()
	if err != nil {
		return w.unreadableValue()
	}
	decoded, err := decodeOrdered(data)
	if err != nil {
		return w.unreadableValue()
	}
	w.valuesLeft++
	return w.value(reflect.ValueOf(decoded), decoded, level)
}

// structFields emits the exported fields as encoding/json names them (tags, "-", embedding).
func (w *walk) structFields(v reflect.Value, emit func(string, reflect.Value, any) bool) bool {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, options, _ := strings.Cut(tag, ",")
		field := v.Field(i)
		if f.Anonymous && name == "" && field.Kind() == reflect.Struct {
			if !w.structFields(field, emit) {
				return false
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(options, "omitempty") && field.IsZero() {
			continue
		}
		if !emit(name, field, field.Interface()) {
			return false
		}
	}
	return true
}

func keyText(k reflect.Value) string {
	if k.Kind() == reflect.String {
		return k.String()
	}
	return fmt.Sprint(k.Interface())
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// errorName is the name an error is reported under: its ErrorName() when it has one, else its
// type's name without package or pointer.
func errorName(err error) string {
	if named, ok := err.(interface{ ErrorName() string }); ok {
		return named.ErrorName()
	}
	name := fmt.Sprintf("%T", err)
	name = strings.TrimLeft(name, "*")
	if dot := strings.LastIndexByte(name, '.'); dot >= 0 {
		name = name[dot+1:]
	}
	if name == "" {
		return "Error"
	}
	return name
}
