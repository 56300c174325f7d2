package jtrace

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"
)

func TestDerivedJourneyIDsMatchTheContractVectors(t *testing.T) {
	secret := "journey id test vector secret one, not a real key"
	for _, v := range [][4]string{
		{"production", "job_posting", "greenhouse:4567", "jrn_03229a6b36d35d0f9ba7e23793d64693"},
		{"staging", "job_posting", "greenhouse:4567", "jrn_2de9db70f99c00a8a83d74339c1faba3"},
		{"prod", "ab", "c", "jrn_739726cd7fde29947be987b3bf09156d"},
		{"prod", "a", "bc", "jrn_36d3f707b064a260431361731f1b32d7"},
	} {
		if id, ok := DeriveJourneyID(secret, v[0], v[1], v[2]); !ok || id != v[3] {
			t.Fatalf("%v: got %s", v, id)
		}
	}
	if _, ok := DeriveJourneyID(secret, "prod", "order", "a\xedb"); ok {
		t.Fatal("derived from text that is not UTF-8")
	}
	uuid := regexp.MustCompile(`^jrn_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if a, b := randomJourneyID(), randomJourneyID(); !uuid.MatchString(a) || a == b {
		t.Fatalf("random ids %s %s", a, b)
	}
}

type hostError struct{ detail string }

func (e *hostError) Error() string { return e.detail }

func TestWrappersReturnTheHostsValueAndErrorUnchanged(t *testing.T) {
	rc := newReceiver(t, nil)
	r, _ := testRecorder(t, rc.URL, Config{})
	ctx := WithJourney(context.Background(), r.StartJourney(Entity{"order", "ord_9"}))
	type order struct {
		ID    string `json:"id"`
		Total int    `json:"total"`
		Card  string `json:"card_number"`
	}
	in := order{"ord_9", 4210, "4242424242424242"}
	out, err := Transform(ctx, "normalize", in, func(_ context.Context, o order) (order, error) {
		o.Total *= 2
		return o, nil
	})
	if err != nil || out.Total != 8420 {
		t.Fatalf("got %+v %v", out, err)
	}
	want := &hostError{"carrier down"}
	value, err := Deliver(ctx, "send", "parcel", func(context.Context, string) (int, error) { return 7, want }, Attempt(2))
	if value != 7 || err != want {
		t.Fatalf("the host's error was changed: %v %v", value, err)
	}
	func() {
		defer func() {
			if p := recover(); p != "boom" {
				t.Fatalf("the host's panic was changed: %v", p)
			}
		}()
		_, _ = Persist(ctx, "save", 1, func(context.Context, int) (int, error) { panic("boom") })
	}()
	// Without a journey, the function runs as it is.
	if v, err := Validate(context.Background(), "check", 3, func(_ context.Context, n int) (int, error) { return n + 1, nil }); v != 4 || err != nil {
		t.Fatalf("got %v %v", v, err)
	}
	if err := closeWithin(t, r, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	events := rc.events()
	if len(events) != 3 {
		t.Fatalf("%d events", len(events))
	}
	first, second, third := events[0], events[1], events[2]
	input := first["input"].(map[string]any)
	if first["operation"] != "transformed" || input["card_number"] != "[REDACTED]" || input["total"] != float64(4210) ||
		first["output"].(map[string]any)["total"] != float64(8420) {
		t.Fatalf("transform event %v", first)
	}
	if second["operation"] != "retried" || second["metadata"].(map[string]any)["attempt"] != float64(2) ||
		second["error"].(map[string]any)["message"] != "carrier down" || second["error"].(map[string]any)["type"] != "hostError" {
		t.Fatalf("deliver event %v", second)
	}
	if second["parentEventId"] != first["id"] || third["operation"] != "persisted" || third["error"].(map[string]any)["message"] != "boom" {
		t.Fatalf("persist event %v", third)
	}
}

func TestEveryStepShape(t *testing.T) {
	rc := newReceiver(t, nil)
	r, _ := testRecorder(t, rc.URL, Config{})
	j := r.StartJourney(Entity{"order", "ord_1"}, WithLabel("Order 1"), WithAliases(map[string]string{"email": "a@example.com"}))
	ctx := WithJourney(context.Background(), j)
	id := func(_ context.Context, v int) (int, error) { return v, nil }
	_, _ = Receive(ctx, "r", 1, id)
	_, _ = Transform(ctx, "t", 1, id)
	_, _ = Validate(ctx, "v", 1, id)
	_, _ = Persist(ctx, "p", 1, id)
	_, _ = Publish(ctx, "pub", 1, id)
	_, _ = Consume(ctx, "c", 1, id)
	_, _ = Deliver(ctx, "d", 1, id)
	tries := 0
	_, err := Retry(ctx, "send", 1, 3, nil, func(_ context.Context, v int) (int, error) {
		tries++
		if tries < 3 {
			return 0, errors.New("not yet")
		}
		return v, nil
	})
	j.Identify(map[string]string{"customerId": "cus_1"}, "customerId")
	j.Fail("dead-letter", errors.New("gave up"))
	j.Finish("")
	if err != nil || closeWithin(t, r, 5*time.Second) != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, e := range rc.events() {
		ops = append(ops, e["operation"].(string))
	}
	want := []string{"received", "transformed", "validated", "persisted", "published", "consumed", "delivered", "delivered", "retried", "retried", "identified", "failed", "completed"}
	if len(ops) != len(want) {
		t.Fatalf("operations %v", ops)
	}
	for i := range want {
		if ops[i] != want[i] {
			t.Fatalf("operations %v", ops)
		}
	}
	first := rc.events()[0]
	if first["journeyLabel"] != "Order 1" || first["aliases"].(map[string]any)["email"] != "a@example.com" || rc.events()[1]["journeyLabel"] != nil {
		t.Fatalf("first event %v", first)
	}
}

func TestConcurrentRecordingCountsEveryEvent(t *testing.T) {
	rc := newReceiver(t, nil)
	r, _ := testRecorder(t, rc.URL, Config{FlushInterval: 5 * time.Millisecond})
	j := r.StartJourney(Entity{"order", "shared"})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			ctx := WithJourney(context.Background(), j)
			for i := 0; i < 100; i++ {
				// Keys never seen before keep the shared key caches writing while other goroutines read.
				input := map[string]any{"g": g, "i": i, "password": "x", fmt.Sprintf("key-%d-%d", g, i): i}
				_, _ = Transform(ctx, "step", input, func(_ context.Context, m map[string]any) (int, error) { return i, nil })
				if i%10 == 0 {
					checkAddsUp(t, r.Counters())
					_ = j.Context()
				}
			}
		}(g)
	}
	wg.Wait()
	if err := closeWithin(t, r, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	c := r.Counters()
	checkAddsUp(t, c)
	if c.Recorded != 800 || c.Sent != 800 || len(rc.events()) != 800 {
		t.Fatalf("counters %+v", c)
	}
}

func TestDisabledOrMisconfiguredRecorderRunsTheHostAndRecordsNothing(t *testing.T) {
	d := &diagnostics{}
	r := New(Config{OnDiagnostic: d.add})
	ctx := WithJourney(context.Background(), r.StartJourney(Entity{"order", "1"}))
	v, err := Transform(ctx, "t", 2, func(_ context.Context, n int) (int, error) { return n * 3, nil })
	if v != 6 || err != nil || d.kinds()["configuration_error"] != 4 {
		t.Fatalf("got %v %v %v", v, err, d.kinds())
	}
	c := r.Counters()
	if c.Recorded != 1 || c.DroppedByCause["disabled"] != 1 || r.Close(context.Background()) != nil {
		t.Fatalf("counters %+v", c)
	}
}

func TestAStepIsStampedWithItsStart(t *testing.T) {
	rc := newReceiver(t, nil)
	r, _ := testRecorder(t, rc.URL, Config{})
	ctx := WithJourney(context.Background(), r.StartJourney(Entity{"order", "ord_t"}))
	before := time.Now()
	_, _ = Deliver(ctx, "call-downstream", 1, func(context.Context, int) (int, error) {
		time.Sleep(50 * time.Millisecond)
		return 1, nil
	})
	if err := closeWithin(t, r, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	event := rc.events()[0]
	stamped, err := time.Parse(time.RFC3339Nano, event["timestamp"].(string))
	if err != nil || stamped.Sub(before) > 40*time.Millisecond || stamped.Before(before.Add(-time.Millisecond)) || event["durationMs"].(float64) < 50 {
		t.Fatalf("timestamp %v (began %v), duration %v", event["timestamp"], before, event["durationMs"])
	}
}

func TestAcrossRunsOnceAndRecordsOnEachJourney(t *testing.T) {
	rc := newReceiver(t, nil)
	r, _ := testRecorder(t, rc.URL, Config{})
	a, b := r.StartJourney(Entity{"customer", "a"}), r.StartJourney(Entity{"customer", "b"})
	runs := 0
	out, err := Persist(Across(context.Background(), a, b), "write-digest", 3, func(_ context.Context, n int) (string, error) {
		runs++
		return "digest", nil
	})
	if out != "digest" || err != nil || runs != 1 || closeWithin(t, r, 5*time.Second) != nil {
		t.Fatalf("got %v %v after %d runs", out, err, runs)
	}
	events := rc.events()
	if len(events) != 2 || events[0]["journeyId"] != a.ID() || events[1]["journeyId"] != b.ID() || events[0]["id"] == events[1]["id"] {
		t.Fatalf("events %v", events)
	}
}
