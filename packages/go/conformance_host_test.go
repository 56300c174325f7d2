package jtrace

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// The Go forms of the host tags whose meaning depends on where they sit (event protocol 11.3,
// test/sdk-cases/README.md): a value left undefined, a member whose reading fails, and pointers
// into the call's arguments ($cycle, $ref).

// casePointer stands where $cycle or $ref was until placeHostValues puts the named value there.
type casePointer string

// undefinedValue stands where $undefined was: as a member it becomes an unset struct field
// tagged omitempty (Go's way of a key with no value, as encoding/json leaves it out); anywhere
// else it is nil.
type undefinedValue struct{}

// failingMarshaler is Go's throwing getter: Go has no getters, and the one place where reading a
// value runs the host's code and can fail is its MarshalJSON, which encoding/json would also
// refuse the whole value for.
type failingMarshaler struct{ message string }

func (f failingMarshaler) MarshalJSON() ([]byte, error) { return nil, errors.New(f.message) }

// hostObject builds an expanded object: an Object, or, when a member is undefined, a struct with
// one field per key (the undefined ones tagged omitempty and left unset).
func hostObject(fields Object) any {
	undefined := false
	for _, f := range fields {
		if _, ok := f.Value.(undefinedValue); ok {
			undefined = true
		}
	}
	if !undefined {
		return fields
	}
	members := make([]reflect.StructField, len(fields))
	for i, f := range fields {
		tag := f.Key
		if _, ok := f.Value.(undefinedValue); ok {
			tag += ",omitempty"
		}
		members[i] = reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeOf((*any)(nil)).Elem(), Tag: reflect.StructTag(`json:"` + tag + `"`)}
	}
	value := reflect.New(reflect.StructOf(members)).Elem()
	for i, f := range fields {
		if _, ok := f.Value.(undefinedValue); !ok && f.Value != nil {
			value.Field(i).Set(reflect.ValueOf(f.Value))
		}
	}
	return value.Interface()
}

// placeHostValues replaces every casePointer in the call's expanded arguments by the value its
// JSON pointer names there, the same Object (a slice sharing its fields), so that a pointer to an
// enclosing object makes a cycle and one to a sibling a shared reference. A placed value is not
// walked again, so the walk ends even once the arguments hold a cycle.
func placeHostValues(args Object) error {
	var failure error
	var visit func(node any)
	place := func(pointer casePointer) any {
		target, err := pointAt(args, string(pointer))
		if err != nil && failure == nil {
			failure = err
		}
		return target
	}
	visit = func(node any) {
		switch x := node.(type) {
		case Object:
			for i := range x {
				if pointer, ok := x[i].Value.(casePointer); ok {
					x[i].Value = place(pointer)
				} else {
					visit(x[i].Value)
				}
			}
		case []any:
			for i := range x {
				if pointer, ok := x[i].(casePointer); ok {
					x[i] = place(pointer)
				} else {
					visit(x[i])
				}
			}
		}
	}
	visit(args)
	return failure
}

func pointAt(args Object, pointer string) (any, error) {
	if !strings.HasPrefix(pointer, "#/") {
		return nil, fmt.Errorf("pointer %q does not start at the arguments", pointer)
	}
	var node any = args
	for _, part := range strings.Split(pointer[2:], "/") {
		object, ok := node.(Object)
		if !ok {
			return nil, fmt.Errorf("pointer %q passes a value that is not an object", pointer)
		}
		found := false
		for _, f := range object {
			if f.Key == part {
				node, found = f.Value, true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("pointer %q names no value", pointer)
		}
	}
	return node, nil
}
