package jtrace

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Go values as the SDK cases state them (docs/sdk.md, "What the contract's cases decide").

type failingJSON struct{}

func (failingJSON) MarshalJSON() ([]byte, error) { return nil, errors.New("no reading this") }

type panickingJSON struct{}

func (panickingJSON) MarshalJSON() ([]byte, error) { panic("no reading this") }

type link struct {
	ID   string `json:"id"`
	Next *link  `json:"next"`
}

func captured(t *testing.T, value any) any {
	t.Helper()
	out, _ := capture(value, defaultMaxEventBytes/2, nil)
	return plainTree(out)
}

// plainTree turns the captured tree into maps for comparison.
func plainTree(v any) any {
	switch x := v.(type) {
	case *object:
		out := map[string]any{}
		for i, key := range x.keys {
			out[key] = plainTree(x.vals[i])
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = plainTree(item)
		}
		return out
	}
	return v
}

func TestAValueThatCannotBeReadMakesThePayloadUncapturable(t *testing.T) {
	for _, value := range []any{
		map[string]any{"ok": "yes", "broken": failingJSON{}},
		Object{{"ok", "yes"}, {"deep", []any{1, map[string]any{"broken": panickingJSON{}}}}},
		struct {
			OK     string       `json:"ok"`
			Broken *failingJSON `json:"broken"`
		}{"yes", &failingJSON{}},
	} {
		if got := captured(t, value); got != "[UNCAPTURABLE]" {
			t.Fatalf("%T: got %v", value, got)
		}
	}
}

func TestAPayloadDeeperThanTheEnvelopeAllowsIsTooLargeAsAWhole(t *testing.T) {
	var deep *link
	for i := 0; i < 40; i++ {
		deep = &link{ID: "x", Next: deep}
	}
	if got := captured(t, Object{{"order", deep}}); got != "[PAYLOAD_TOO_LARGE]" {
		t.Fatalf("got %v", got)
	}
	// 29 levels below the root fit: the limit is the envelope's, not a smaller one.
	var fits any = 1
	for i := 0; i < 29; i++ {
		fits = map[string]any{"n": fits}
	}
	if got := captured(t, fits); got == "[PAYLOAD_TOO_LARGE]" {
		t.Fatal("a payload within the depth was replaced")
	}
}

func TestAnObjectInsideItselfIsCircularAndAnObjectMetTwiceIsWrittenTwice(t *testing.T) {
	order := Object{{"id", "ord_77"}, {"parent", nil}}
	order[1].Value = Object{{"id", "ord_1"}, {"child", order}}
	want := map[string]any{"id": "ord_77", "parent": map[string]any{"id": "ord_1", "child": "[CIRCULAR]"}}
	if got := captured(t, order); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	address := Object{{"city", "Durham"}}
	both := map[string]any{"city": "Durham"}
	if got := captured(t, Object{{"shipTo", address}, {"billTo", address}}); !reflect.DeepEqual(got, map[string]any{"shipTo": both, "billTo": both}) {
		t.Fatalf("got %v", got)
	}
}

func TestClearTextLosesNULAndEachLoneSurrogateBecomesOneReplacement(t *testing.T) {
	for in, want := range map[string]string{
		"Dana\x00":                   "Dana",
		"a\x00b\x00":                 "ab",
		"x\xed\xb3\xbf\xed\xa0\x80y": "x\uFFFD\uFFFDy", // a low then a high surrogate: two characters, as in JavaScript
		"x\xff\xfey":                 "x\uFFFDy",
		"ok é 😀":                     "ok é 😀",
	} {
		if got := storable(in, false); got != want {
			t.Fatalf("%q: got %q", in, got)
		}
	}
	if got := storable("C-\x00-1", true); got != "C-\x00-1" {
		t.Fatalf("text stored encrypted keeps U+0000: %q", got)
	}
	if got := captured(t, map[string]any{"na\x00me": "Da\x00na"}); !reflect.DeepEqual(got, map[string]any{"name": "Dana"}) {
		t.Fatalf("got %v", got)
	}
}

type nulNamed struct{}

func (nulNamed) Error() string     { return "\x00" }
func (nulNamed) ErrorName() string { return "\x00\x00" }

func TestFieldsLeftEmptyByNULFallBackOrAreLeftOff(t *testing.T) {
	rc := newReceiver(t, nil)
	r, _ := testRecorder(t, rc.URL, Config{})
	j := r.StartJourney(Entity{"\x00", "ord\x00_1"}, WithLabel("\x00 \x00"))
	j.Record(Received, "\x00", Fields{
		Aliases:            map[string]string{"\x00": "lost", "crm": "C-\x00-1"},
		DisplayableAliases: []string{"\x00", "crm"},
		Error:              nulNamed{},
		Metadata:           map[string]any{"tenant": "acme", "broken": failingJSON{}},
		Input:              map[string]any{"at": time.Date(2026, 1, 2, 5, 4, 5, 678_900_000, time.FixedZone("", 2*3600))},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	events := rc.events()
	if len(events) != 1 {
		t.Fatalf("%d events", len(events))
	}
	e := events[0]
	checks := map[string][2]any{
		"entity":             {e["entity"], map[string]any{"type": "unknown", "id": "ord\x00_1"}},
		"name":               {e["name"], "received"},
		"aliases":            {e["aliases"], map[string]any{"crm": "C-\x00-1"}},
		"displayableAliases": {e["displayableAliases"], []any{"crm"}},
		"error":              {e["error"], map[string]any{"type": "Error", "message": "Error"}},
		"input":              {e["input"], map[string]any{"at": "2026-01-02T03:04:05.678Z"}},
	}
	for field, pair := range checks {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s: got %#v, want %#v", field, pair[0], pair[1])
		}
	}
	for _, field := range []string{"journeyLabel", "metadata"} {
		if _, ok := e[field]; ok {
			t.Errorf("%s should be left off: %v", field, e[field])
		}
	}
}

func TestALongStringOfLoneSurrogatesIsCutAsJavaScriptCutsIt(t *testing.T) {
	// 70,000 lone surrogates are 70,000 UTF-16 units: 65,500 kept, the marker says 4,500 removed.
	got := captured(t, strings.Repeat("\xed\xa0\x80", 70000))
	if want := strings.Repeat("\uFFFD", 65500) + "[TRUNCATED: 4500 characters removed]"; got != want {
		t.Fatalf("got %d bytes ending %q", len(got.(string)), got.(string)[len(got.(string))-40:])
	}
}

func TestGoCyclesAreCircularWhereTheyClose(t *testing.T) {
	m := map[string]any{"id": "ord_1"}
	m["self"] = m
	list := []any{"first", nil}
	list[1] = list
	node := &link{ID: "a"}
	node.Next = &link{ID: "b", Next: node}
	for _, c := range []struct {
		value any
		want  any
	}{
		{m, map[string]any{"id": "ord_1", "self": "[CIRCULAR]"}},
		{list, []any{"first", "[CIRCULAR]"}},
		{node, map[string]any{"id": "a", "next": map[string]any{"id": "b", "next": "[CIRCULAR]"}}},
	} {
		if got := captured(t, c.value); !reflect.DeepEqual(got, c.want) {
			t.Fatalf("got %v, want %v", got, c.want)
		}
	}
}
