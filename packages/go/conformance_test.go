package jtrace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	for _, id := range ids {
		path, ok := caseFile(id)
		if !ok {
			// A case file going missing is a contract change: a failure, never a smaller run.
			t.Errorf("%s is named by the manifest but has a file in neither test/conformance/sdk nor test/sdk-cases", id)
			continue
		}
		t.Run(strings.TrimPrefix(id, "sdk/"), func(t *testing.T) { runCase(t, id, path) })
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
	// Only the environment can be set up for a dry run: ingested events mean nothing to it.
	setup, _ := doc["setup"].(map[string]any)
	for part := range setup {
		if part != "environment" {
			t.Fatalf("setup %s cannot be honoured by this runner", part)
		}
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
	expandedCalls, unknown := expandCase(calls, run, true)
	if unknown != "" {
		t.Fatalf("the host tag %s is unknown to this runner", unknown)
	}
	for _, call := range expandedCalls.([]any) {
		if args, ok := asObjectMap(call)["args"].(Object); ok {
			if err := placeHostValues(args); err != nil {
				t.Fatal(err)
			}
		}
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
	key := conformanceKey
	if _, ok := setup["environment"]; ok {
		// The case's environment (redaction rules, capture mode) decides what the server stores.
		caseKeys := map[string]string{}
		_ = json.Unmarshal([]byte(caseKeysJSON), &caseKeys)
		if key, ok = caseKeys[id]; !ok {
			t.Fatal("the environment this case sets up was not provided (JTRACE_TEST_CASE_KEYS)")
		}
	}
	var results []map[string]any
	for _, batch := range rc.batches {
		results = append(results, dryRun(t, key, batch)...)
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
