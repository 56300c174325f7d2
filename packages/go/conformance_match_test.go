package jtrace

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strings"
	"time"
	"unicode/utf16"
)

// The case format's expansion (event protocol 11.3) and comparison (11.4) for the Go runner.

type caseError struct{ name, message string }

func (e *caseError) Error() string     { return e.message }
func (e *caseError) ErrorName() string { return e.name }

// expandCase applies the case tags (11.3) and, for calls, the host tags (their Go forms, see
// conformance_host_test.go); unknown names a tag this runner does not know, which fails the case.
func expandCase(value any, run string, host bool) (any, string) {
	unknown := ""
	var again func(any) any
	again = func(v any) any {
		switch x := v.(type) {
		case string:
			return strings.ReplaceAll(x, "{{run}}", run)
		case []any:
			out := make([]any, len(x))
			for i, item := range x {
				out[i] = again(item)
			}
			return out
		case Object:
			if len(x) == 1 && strings.HasPrefix(x[0].Key, "$") {
				tag, arg := x[0].Key, x[0].Value
				switch tag {
				case "$matches", "$absent":
					return x
				case "$literal":
					return arg
				case "$string":
					a := asObjectMap(arg)
					n, _ := a["count"].(json.Number).Int64()
					return strings.Repeat(again(a["char"]).(string), int(n))
				case "$array":
					a := asObjectMap(arg)
					n, _ := a["count"].(json.Number).Int64()
					out := make([]any, n)
					for i := range out {
						out[i] = again(a["value"])
					}
					return out
				case "$nest":
					a := asObjectMap(arg)
					n, _ := a["depth"].(json.Number).Int64()
					nested := again(a["leaf"])
					for i := 0; i < int(n); i++ {
						nested = Object{{"n", nested}}
					}
					return nested
				case "$concat":
					var b strings.Builder
					for _, piece := range arg.([]any) {
						b.WriteString(fmt.Sprint(again(piece)))
					}
					return b.String()
				}
				if !host {
					return x
				}
				inner := again(arg)
				switch tag {
				case "$error":
					a := asObjectMap(inner)
					name := text(a["name"])
					if name == "" {
						name = "Error"
					}
					return &caseError{name, fmt.Sprint(a["message"])}
				case "$bigint":
					n, _ := new(big.Int).SetString(fmt.Sprint(inner), 10)
					return n
				case "$date":
					at, _ := time.Parse(time.RFC3339Nano, text(inner))
					return at
				case "$number":
					return map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)}[text(inner)]
				case "$buffer":
					return []byte(text(inner))
				case "$utf16":
					var units []uint16
					for _, u := range inner.([]any) {
						n, _ := u.(json.Number).Int64()
						units = append(units, uint16(n))
					}
					return wtf8(units)
				case "$projection":
					pointer := text(inner)
					return func(v any) any { return follow(v, pointer) }
				case "$throwingProjection":
					return func(any) any { panic("projection failed") }
				case "$throwingGetter":
					return failingMarshaler{text(inner)}
				case "$undefined":
					return undefinedValue{}
				case "$cycle", "$ref":
					return casePointer(text(inner))
				case "$map":
					// Go's map: its keys are captured sorted, as encoding/json writes them.
					out := map[string]any{}
					for _, entry := range inner.([]any) {
						pair := entry.([]any)
						out[fmt.Sprint(pair[0])] = pair[1]
					}
					return out
				case "$set":
					return inner.([]any) // Go has no set type; a slice of its members is the nearest
				}
				if unknown == "" {
					unknown = tag
				}
				return nil
			}
			out := make(Object, len(x))
			for i, f := range x {
				out[i] = Field{strings.ReplaceAll(f.Key, "{{run}}", run), again(f.Value)}
			}
			if host {
				return hostObject(out)
			}
			return out
		}
		return v
	}
	return again(value), unknown
}

// wtf8 writes UTF-16 units as Go bytes: a lone surrogate stays the 3 bytes that are not UTF-8,
// as a Go string holding one would have them.
func wtf8(units []uint16) string {
	var b []byte
	for i := 0; i < len(units); i++ {
		u := units[i]
		if utf16.IsSurrogate(rune(u)) && i+1 < len(units) && u < 0xdc00 && units[i+1] >= 0xdc00 && units[i+1] < 0xe000 {
			b = append(b, string(utf16.DecodeRune(rune(u), rune(units[i+1])))...)
			i++
		} else if utf16.IsSurrogate(rune(u)) {
			b = append(b, 0xe0|byte(u>>12), 0x80|byte(u>>6&0x3f), 0x80|byte(u&0x3f))
		} else {
			b = append(b, string(rune(u))...)
		}
	}
	return string(b)
}

func follow(v any, pointer string) any {
	for _, part := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		switch x := v.(type) {
		case Object:
			v = asObjectMap(x)[part]
		case string:
			if part == "length" {
				return len(utf16.Encode([]rune(x)))
			}
		case []byte:
			if part == "length" {
				return len(x)
			}
		case []any:
			if part == "length" {
				return len(x)
			}
		}
	}
	return v
}

// plain turns Object into map[string]any and json.Number into float64 for comparison.
func plain(v any) any {
	switch x := v.(type) {
	case Object:
		out := map[string]any{}
		for _, f := range x {
			out[f.Key] = plain(f.Value)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = plain(item)
		}
		return out
	case json.Number:
		f, _ := x.Float64()
		return f
	}
	return v
}

func isAbsent(v any) bool {
	m, ok := v.(map[string]any)
	return ok && len(m) == 1 && m["$absent"] == true
}

func exact(actual, expected any, path string, out *[]string) {
	if m, ok := expected.(map[string]any); ok && len(m) == 1 {
		if pattern, ok := m["$matches"].(string); ok {
			s, isString := actual.(string)
			re, err := compileCasePattern(pattern)
			if !isString || err != nil || !re.MatchString(s) {
				*out = append(*out, fmt.Sprintf("%s: %.120v does not match /%s/", path, actual, pattern))
			}
			return
		}
	}
	switch want := expected.(type) {
	case []any:
		got, ok := actual.([]any)
		if !ok || len(got) != len(want) {
			*out = append(*out, fmt.Sprintf("%s: expected an array of %d, got %.120v", path, len(want), actual))
			return
		}
		for i := range want {
			exact(got[i], want[i], fmt.Sprintf("%s[%d]", path, i), out)
		}
	case map[string]any:
		got, ok := actual.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: expected an object, got %.120v", path, actual))
			return
		}
		for key := range got {
			if w, listed := want[key]; !listed || isAbsent(w) {
				*out = append(*out, fmt.Sprintf("%s: unexpected key %s", path, key))
			}
		}
		for key, w := range want {
			if isAbsent(w) {
				continue
			}
			if g, ok := got[key]; !ok {
				*out = append(*out, fmt.Sprintf("%s.%s: missing", path, key))
			} else {
				exact(g, w, path+"."+key, out)
			}
		}
	default:
		if fmt.Sprintf("%T", actual) != fmt.Sprintf("%T", expected) || actual != expected {
			*out = append(*out, fmt.Sprintf("%s: expected %.120v, got %.120v", path, expected, actual))
		}
	}
}

func subset(actual map[string]any, expected map[string]any, path string) []string {
	var out []string
	if actual == nil {
		return []string{path + ": expected an object"}
	}
	for key, value := range expected {
		if isAbsent(value) {
			if _, ok := actual[key]; ok {
				out = append(out, path+"."+key+": should be absent")
			}
		} else if got, ok := actual[key]; !ok {
			out = append(out, path+"."+key+": missing")
		} else {
			exact(got, value, path+"."+key, &out)
		}
	}
	return out
}

// compileCasePattern reads a case's JavaScript regex; the cases use syntax RE2 reads alike.
func compileCasePattern(pattern string) (*regexp.Regexp, error) { return regexp.Compile(pattern) }
