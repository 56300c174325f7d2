package jtrace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// Against the real server (npm test sets JTRACE_TEST_URL and keys): hostile values fitted by the
// SDK are all accepted by the dry run, and a recorded journey reads back through the API.

var (
	serverURL      = os.Getenv("JTRACE_TEST_URL")
	serverKey      = os.Getenv("JTRACE_TEST_API_KEY")
	conformanceKey = os.Getenv("JTRACE_TEST_CONFORMANCE_KEY")
	requireServer  = os.Getenv("JTRACE_TEST_REQUIRE_SERVER") == "1"
	// Keys of environments set up for the conformance cases that ask for one, by case id
	// (packages/go/test/go-sdk.int.test.ts).
	caseKeysJSON = os.Getenv("JTRACE_TEST_CASE_KEYS")
)

func needServer(t *testing.T) {
	t.Helper()
	if serverURL == "" {
		if requireServer {
			t.Fatal("JTRACE_TEST_URL is not set")
		}
		t.Skip("needs a jtrace server: JTRACE_TEST_URL and keys (npm test provides them)")
	}
}

func apiJSON(t *testing.T, method, path, key string, body any) (int, map[string]any) {
	t.Helper()
	var reader *bytes.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		reader = bytes.NewReader(data)
	} else {
		reader = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, serverURL+path, reader)
	req.Header.Set("authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("content-type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func dryRun(t *testing.T, key string, events []map[string]any) []map[string]any {
	t.Helper()
	envelopes := make([]any, len(events))
	for i, e := range events {
		envelopes[i] = map[string]any{"protocolVersion": "0.1", "event": e}
	}
	status, body := apiJSON(t, "POST", "/v1/events/batch?dryRun=true", key, map[string]any{"events": envelopes})
	if status != 200 {
		t.Fatalf("dry run answered %d: %v", status, body)
	}
	var results []map[string]any
	for _, r := range body["data"].(map[string]any)["results"].([]any) {
		results = append(results, r.(map[string]any))
	}
	return results
}

var pieces = []string{"a", "é", "😀", "\x00", "\xed\xa0\x80", "\xff", "\r\n", "Authorization: Bearer abcDEF123456", "password", "[*]", " "}

func hostile(rng *rand.Rand, depth int) any {
	roll := rng.Float64()
	pick := func() string { return pieces[rng.Intn(len(pieces))] }
	if depth > 6 || roll < 0.3 {
		switch rng.Intn(6) {
		case 0:
			var b strings.Builder
			for i := rng.Intn(20); i > 0; i-- {
				b.WriteString(pick())
			}
			return b.String()
		case 1:
			return strings.Repeat(pick(), []int{1, 1000, 70000}[rng.Intn(3)])
		case 2:
			return []any{0, -1, int64(1) << 53, uint64(1) << 63, 1e308, math.Inf(1), math.NaN(), true, nil}[rng.Intn(9)]
		case 3:
			return strings.Repeat("k", []int{10, 129, 600}[rng.Intn(3)])
		}
		return rng.Float64()
	}
	if roll < 0.65 {
		m := map[string]any{}
		for i := rng.Intn(3) + 1; i > 0; i-- {
			m[strings.Repeat(pick(), rng.Intn(199)+1)] = hostile(rng, depth+1)
		}
		return m
	}
	if roll < 0.7 {
		item := hostile(rng, depth+1)
		list := make([]any, []int{1, 1200}[rng.Intn(2)])
		for i := range list {
			list[i] = item
		}
		return list
	}
	if roll < 0.72 {
		nested := hostile(rng, 7)
		for i := []int{31, 40}[rng.Intn(2)]; i > 0; i-- {
			nested = map[string]any{"n": nested}
		}
		return nested
	}
	list := []any{}
	for i := rng.Intn(3) + 1; i > 0; i-- {
		list = append(list, hostile(rng, depth+1))
	}
	return list
}

func TestFittedHostileValuesAreAcceptedByTheDryRun(t *testing.T) {
	needServer(t)
	rng := rand.New(rand.NewSource(2026))
	rc := newReceiver(t, nil)
	r := New(Config{Endpoint: rc.URL, APIKey: "stub", ServiceName: strings.Repeat("svc\x00", 40), Environment: "conformance",
		OnDiagnostic: func(Diagnostic) {}, MaxEventBytes: 65536})
	for i := 0; i < 60; i++ {
		j := r.StartJourney(Entity{strings.Repeat(pieces[rng.Intn(len(pieces))], rng.Intn(300)+1), firstRunes(strings.Repeat(pieces[rng.Intn(len(pieces))], rng.Intn(600)+1), 512)},
			WithLabel(strings.Repeat(pieces[rng.Intn(len(pieces))], rng.Intn(300))))
		aliases := map[string]string{}
		var shown []string
		for k := 0; k < 3; k++ {
			kind := strings.Repeat(pieces[rng.Intn(len(pieces))], rng.Intn(200)+1)
			aliases[kind] = strings.Repeat(pieces[rng.Intn(len(pieces))], rng.Intn(700)+1)
			shown = append(shown, kind)
		}
		took := []time.Duration{-5 * time.Millisecond, 1e12 * time.Millisecond, 3700 * time.Microsecond}[rng.Intn(3)]
		var failure any = hostile(rng, 0)
		if rng.Intn(2) == 0 {
			failure = fmt.Errorf("%s", strings.Repeat("x", 9000))
		}
		j.Record([]Operation{Received, Transformed, Failed}[rng.Intn(3)], strings.Repeat(pieces[rng.Intn(len(pieces))], rng.Intn(400)),
			Fields{Input: hostile(rng, 0), Output: hostile(rng, 0), Metadata: hostile(rng, 0), Aliases: aliases, DisplayableAliases: shown,
				Error: failure, MessageID: strings.Repeat("m", 300), Duration: &took})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := r.Close(ctx); err != nil {
		t.Fatal(err)
	}
	results := []map[string]any{}
	for _, batch := range rc.batches {
		results = append(results, dryRun(t, conformanceKey, batch)...)
	}
	if len(results) != 60 {
		t.Fatalf("%d results", len(results))
	}
	for i, result := range results {
		if result["status"] != "accepted" {
			t.Errorf("event %d refused: %v", i, result["error"])
		}
	}
}

func TestAJourneyReadsBackThroughTheAPI(t *testing.T) {
	needServer(t)
	entityID := fmt.Sprintf("ord_go_%d", time.Now().UnixNano())
	r := New(Config{Endpoint: serverURL, APIKey: serverKey, ServiceName: "go-service", Environment: "production", OnDiagnostic: func(Diagnostic) {}})
	ctx := WithJourney(context.Background(), r.StartJourney(Entity{"order", entityID}, WithLabel("Go order")))
	order := Object{{"customer", Object{{"name", "Ada"}, {"phone", "+44 20 7946 0000"}}}, {"password", "hunter2"}}
	_, _ = Transform(ctx, "normalize", order, func(context.Context, Object) (Object, error) {
		return Object{{"customer", Object{{"name", "Ada"}}}, {"password", "hunter2"}}, nil
	})
	JourneyFrom(ctx).Finish("")
	closing, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.Close(closing); err != nil {
		t.Fatal(err)
	}
	if c := r.Counters(); c.Sent != 2 || c.Recorded != 2 {
		t.Fatalf("counters %+v", c)
	}
	_, found := apiJSON(t, "GET", "/v1/search?q="+url.QueryEscape(entityID), serverKey, nil)
	items := found["data"].(map[string]any)["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("search %v", found)
	}
	journeyID := items[0].(map[string]any)["journeyId"].(string)
	_, detail := apiJSON(t, "GET", "/v1/journeys/"+journeyID, serverKey, nil)
	data := detail["data"].(map[string]any)
	if data["status"] != "completed" || data["label"] != "Go order" {
		t.Fatalf("journey %v", data)
	}
	_, events := apiJSON(t, "GET", "/v1/journeys/"+journeyID+"/events?limit=10", serverKey, nil)
	var transformID string
	for _, e := range events["data"].(map[string]any)["items"].([]any) {
		if e.(map[string]any)["name"] == "normalize" {
			transformID = e.(map[string]any)["id"].(string)
		}
	}
	_, event := apiJSON(t, "GET", "/v1/events/"+transformID, serverKey, nil)
	stored := event["data"].(map[string]any)
	diff, _ := json.Marshal(stored["payloadDiff"].(map[string]any)["changes"])
	if stored["inputPayload"].(map[string]any)["password"] != "[REDACTED]" ||
		string(diff) != `[{"before":"+44 20 7946 0000","kind":"removed","path":"customer.phone"}]` {
		t.Fatalf("event %v", stored)
	}
}

// firstRunes: an entity id is the host's to keep within 512 characters (it is never cut, only stored).
func firstRunes(text string, n int) string {
	count := 0
	for i := range text {
		if count == n {
			return text[:i]
		}
		count++
	}
	return text
}
