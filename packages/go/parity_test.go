//go:build parity

package jtrace

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"testing"
)

// TestParity reads cases from JTRACE_PARITY_INPUT and writes what the Go SDK's rules make of them
// to JTRACE_PARITY_OUTPUT, so that packages/go/test/rules-parity.test.ts can compare every answer
// with the server's own code. Built only with -tags parity.
func TestParity(t *testing.T) {
	data, err := os.ReadFile(os.Getenv("JTRACE_PARITY_INPUT"))
	if err != nil {
		t.Fatal(err)
	}
	decoded, err := decodeOrdered(data)
	if err != nil {
		t.Fatal(err)
	}
	cases := asObjectMap(decoded)
	strs := func(key string) []string {
		var out []string
		for _, v := range cases[key].([]any) {
			out = append(out, v.(string))
		}
		return out
	}
	answer := newObject(8)
	var list []any
	for _, text := range strs("mask") {
		list = append(list, maskCredentialText(text))
	}
	answer.set("mask", list)
	list = nil
	for _, name := range strs("names") {
		list = append(list, isSecretLookingName(name, ""))
	}
	answer.set("names", list)
	list = nil
	for _, rule := range strs("rules") {
		_, _, ok := parseRule(rule)
		list = append(list, ok)
	}
	answer.set("rules", list)
	list = nil
	for _, c := range cases["redact"].([]any) {
		fields := asObjectMap(c)
		var rules []string
		for _, r := range fields["rules"].([]any) {
			rules = append(rules, r.(string))
		}
		tree, _ := capture(fields["value"], 1<<30, nil)
		list = append(list, newRedactor(rules).redact(tree))
	}
	answer.set("redact", list)
	list = nil
	for _, c := range cases["contexts"].([]any) {
		fields := asObjectMap(c)
		entity := asObjectMap(fields["entity"])
		ctx := JourneyContext{JourneyID: fields["journeyId"].(string), Entity: &Entity{entity["type"].(string), entity["id"].(string)}}
		if parent, ok := fields["parentEventId"].(string); ok {
			ctx.ParentEventID = parent
		}
		out := newObject(3)
		for _, f := range contextFields(ctx, false, peerHeaders) {
			out.set(f[0], f[1])
		}
		list = append(list, out)
	}
	answer.set("inject", list)
	list = nil
	for _, c := range cases["headers"].([]any) {
		h := http.Header{}
		for _, f := range c.(Object) {
			switch v := f.Value.(type) {
			case string:
				h.Add(f.Key, v)
			case []any:
				for _, item := range v {
					h.Add(f.Key, item.(string))
				}
			}
		}
		ctx, ok := ExtractHTTPContext(h)
		if !ok {
			list = append(list, nil)
			continue
		}
		out := newObject(3)
		out.set("journeyId", ctx.JourneyID)
		if ctx.Entity != nil {
			entity := newObject(2)
			entity.set("type", ctx.Entity.Type)
			entity.set("id", ctx.Entity.ID)
			out.set("entity", entity)
		}
		if ctx.ParentEventID != "" {
			out.set("parentEventId", ctx.ParentEventID)
		}
		list = append(list, out)
	}
	answer.set("extract", list)
	list = nil
	for _, value := range cases["capture"].([]any) {
		captured, _ := capture(value, defaultMaxEventBytes/2, nil)
		list = append(list, captured)
	}
	answer.set("capture", list)
	list = nil
	for _, text := range strs("truncate") {
		list = append(list, truncateString(text, 64))
	}
	answer.set("truncate", list)
	var buf bytes.Buffer
	writeJSON(&buf, answer)
	if !json.Valid(buf.Bytes()) {
		t.Fatal("answer is not JSON")
	}
	if err := os.WriteFile(os.Getenv("JTRACE_PARITY_OUTPUT"), buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}
