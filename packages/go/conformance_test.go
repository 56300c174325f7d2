package jtrace

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

// The SDK conformance cases (event protocol 11.5): every SDK id of the contract's manifest, read
// from the contract's copy (test/conformance/sdk) or jtrace's own statement (test/sdk-cases).
// Each case drives a recorder against a local receiver, compares the captured events and
// diagnostics, then sends them through the real server's dry run and compares the verdicts.

var repoRoot = filepath.Join("..", "..")

func caseFile(id string) (string, bool) {
	stem := strings.TrimPrefix(id, "sdk/")
	for _, dir := range []string{filepath.Join(repoRoot, "test", "conformance", "sdk"), filepath.Join(repoRoot, "test", "sdk-cases")} {
		path := filepath.Join(dir, stem+".json")
		if _, err := os.Stat(path); err == nil {
			return path, true
		}
	}
	return "", false
}

func TestConformance(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "test", "conformance", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var manifest struct {
		SDK []string `json:"sdk"`
	}
	if err := json.Unmarshal(data, &manifest); err != nil || len(manifest.SDK) == 0 {
		t.Fatalf("manifest: %v", err)
	}
	// Files beside the manifest's ids run too (the contract ships cases its manifest does not list).
	ids := append([]string(nil), manifest.SDK...)
	listed := map[string]bool{}
	for _, id := range ids {
		listed[id] = true
	}
	for _, dir := range []string{filepath.Join(repoRoot, "test", "conformance", "sdk"), filepath.Join(repoRoot, "test", "sdk-cases")} {
		names, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, name := range names {
			id := "sdk/" + strings.TrimSuffix(filepath.Base(name), ".json")
			if !listed[id] {
				listed[id] = true
				ids = append(ids, id)
			}
		}
	}
	var absent []string
	for _, id := range ids {
		path, ok := caseFile(id)
		if !ok {
			// A case not yet stated in either folder is listed, not failed, until every one has a file.
			absent = append(absent, id)
			continue
		}
		t.Run(strings.TrimPrefix(id, "sdk/"), func(t *testing.T) { runCase(t, id, path) })
	}
	if len(absent) > 0 {
		fmt.Printf("conformance: %d case(s) named by the manifest have no file yet: %s\n", len(absent), strings.Join(absent, ", "))
	}
}

func runCase(t *testing.T, id, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := decodeOrdered(data)
	if err != nil {
		t.Fatal(err)
	}
	doc := plain(decoded).(map[string]any)
	if doc["id"] != id {
		t.Fatalf("file %s holds %v", path, doc["id"])
	}
	applies := false
	for _, language := range doc["languages"].([]any) {
		applies = applies || language == "*" || language == "go"
	}
	if !applies {
		t.Skip("not a Go case: marked for another language")
	}
	ordered := decoded.(Object)
	run := uuid4()[:12]
	var calls, expectOrdered any
	for _, f := range ordered {
		switch f.Key {
		case "calls":
			calls = f.Value
		case "expect":
			expectOrdered = f.Value
		}
	}
	expandedCalls, skip := expandCase(calls, run, true)
	if skip != "" {
		t.Skip("not a Go case: " + skip)
	}
	expectedAny, _ := expandCase(expectOrdered, run, false)
	expected := plain(expectedAny).(map[string]any)

	rc := newReceiver(t, nil)
	diags := &diagnostics{}
	cfg := Config{Endpoint: rc.URL, APIKey: "stub", ServiceName: "conformance", Environment: "conformance", OnDiagnostic: diags.add}
	if options, ok := doc["recorder"].(map[string]any); ok {
		if n, ok := options["maxEventBytes"].(float64); ok {
			cfg.MaxEventBytes = int(n)
		}
	}
	r := New(cfg)
	j := r.StartJourney(Entity{"customer", "0018Z00002ABC"})
	for _, call := range expandedCalls.([]any) {
		c := asObjectMap(call)
		repeat := 1
		if n, ok := c["repeat"].(json.Number); ok {
			v, _ := n.Int64()
			repeat = int(v)
		}
		ctx := WithJourney(context.Background(), j)
		if n, ok := c["journeys"].(json.Number); ok {
			// One call on several journeys goes through Across; each journey gets its own event.
			count, _ := n.Int64()
			var journeys []*Journey
			for i := int64(0); i < count; i++ {
				journeys = append(journeys, r.StartJourney(Entity{"customer", "0018Z00002ABC"}))
			}
			ctx = Across(context.Background(), journeys...)
		}
		for i := 0; i < repeat; i++ {
			runCall(t, ctx, JourneyFrom(ctx), c)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	events := rc.events()
	if wire, ok := expected["wire"].(map[string]any); ok {
		for i, event := range events {
			if problems := subset(event, wire, fmt.Sprintf("events[%d]", i)); len(problems) > 0 {
				t.Fatal(strings.Join(problems, "\n"))
			}
		}
	}
	if want, ok := expected["diagnostics"]; ok {
		var seen []any
		for _, d := range diags.list {
			detail, _ := json.Marshal(d.Detail)
			var back any
			_ = json.Unmarshal(detail, &back)
			seen = append(seen, map[string]any{"kind": d.Kind, "detail": back})
		}
		var problems []string
		exact(seen, want, "diagnostics", &problems)
		if len(problems) > 0 {
			t.Fatal(strings.Join(problems, "\n"))
		}
	}
	for _, batch := range rc.batches {
		if len(batch) > 100 {
			t.Fatalf("a batch of %d", len(batch))
		}
	}
	if serverURL == "" {
		if requireServer {
			t.Fatal("JTRACE_TEST_URL is not set")
		}
		return // the dry run needs the server; npm test provides it
	}
	var results []map[string]any
	for _, batch := range rc.batches {
		results = append(results, dryRun(t, batch)...)
	}
	wanted, _ := expected["results"].([]any)
	if len(results) != len(wanted) {
		t.Fatalf("%d results, %d expected", len(results), len(wanted))
	}
	for i, w := range wanted {
		want := w.(map[string]any)
		got := results[i]
		if got["status"] != want["status"] {
			t.Fatalf("results[%d]: %v %v", i, got["status"], got["error"])
		}
		if d, ok := want["duplicate"]; ok && got["duplicate"] != d {
			t.Fatalf("results[%d].duplicate %v", i, got["duplicate"])
		}
		if stored, ok := want["stored"].(map[string]any); ok {
			for _, part := range []string{"event", "journey"} {
				if wantPart, ok := stored[part].(map[string]any); ok {
					gotPart, _ := got["stored"].(map[string]any)[part].(map[string]any)
					if problems := subset(gotPart, wantPart, "stored."+part); len(problems) > 0 {
						t.Fatal(strings.Join(problems, "\n"))
					}
				}
			}
		}
	}
}

func asObjectMap(v any) map[string]any {
	out := map[string]any{}
	if o, ok := v.(Object); ok {
		for _, f := range o {
			out[f.Key] = f.Value
		}
	}
	return out
}

func text(v any) string { s, _ := v.(string); return s }

func runCall(t *testing.T, ctx context.Context, j *Journey, c map[string]any) {
	args := asObjectMap(c["args"])
	options := asObjectMap(args["options"])
	kind := text(c["call"])
	switch kind {
	case "record":
		f := Fields{Input: args["input"], Output: args["output"], Metadata: args["metadata"], Error: args["error"],
			ParentEventID: text(args["parentEventId"]), MessageID: text(args["messageId"]), CorrelationID: text(args["correlationId"])}
		if aliases, ok := args["aliases"].(Object); ok {
			f.Aliases = map[string]string{}
			for _, a := range aliases {
				f.Aliases[a.Key] = text(a.Value)
			}
		}
		if list, ok := args["displayableAliases"].([]any); ok {
			f.DisplayableAliases = []string{}
			for _, item := range list {
				f.DisplayableAliases = append(f.DisplayableAliases, text(item))
			}
		}
		j.Record(Operation(text(args["operation"])), text(args["name"]), f)
	case "identify":
		aliases := map[string]string{}
		for _, a := range args["aliases"].(Object) {
			aliases[a.Key] = text(a.Value)
		}
		var shown []string
		if list, ok := options["displayable"].([]any); ok {
			for _, item := range list {
				shown = append(shown, text(item))
			}
		}
		j.Identify(aliases, shown...)
	case "fail":
		name := text(c["name"])
		if name == "" {
			name = "fail"
		}
		j.Fail(name, args["error"])
	case "finish":
		j.Finish(text(c["name"]))
	case "label":
		j.Label(text(args["text"]))
	case "receive", "transform", "validate", "persist", "publish", "consume", "deliver":
		var opts []StepOption
		if n, ok := options["attempt"].(json.Number); ok {
			v, _ := n.Int64()
			opts = append(opts, Attempt(int(v)))
		}
		if p, ok := options["captureInput"].(func(any) any); ok {
			opts = append(opts, CaptureInput(p))
		}
		if p, ok := options["captureOutput"].(func(any) any); ok {
			opts = append(opts, CaptureOutput(p))
		}
		name := text(c["name"])
		if name == "" {
			name = kind
		}
		output := args["output"]
		wrapper := map[string]func(context.Context, string, any, func(context.Context, any) (any, error), ...StepOption) (any, error){
			"receive": Receive[any, any], "transform": Transform[any, any], "validate": Validate[any, any], "persist": Persist[any, any],
			"publish": Publish[any, any], "consume": Consume[any, any], "deliver": Deliver[any, any],
		}[kind]
		_, _ = wrapper(ctx, name, args["input"], func(context.Context, any) (any, error) { return output, nil }, opts...)
	default:
		t.Fatalf("unknown call %s", kind)
	}
}

type caseError struct{ name, message string }

func (e *caseError) Error() string     { return e.message }
func (e *caseError) ErrorName() string { return e.name }

// expandCase applies the case tags (11.3) and, for calls, the host tags; skip names a host tag
// that has no Go form.
func expandCase(value any, run string, host bool) (any, string) {
	skip := ""
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
				}
				if skip == "" {
					skip = tag + " has no Go form in this runner"
				}
				return nil
			}
			out := make(Object, len(x))
			for i, f := range x {
				out[i] = Field{strings.ReplaceAll(f.Key, "{{run}}", run), again(f.Value)}
			}
			return out
		}
		return v
	}
	return again(value), skip
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
