package jtrace

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// receiver is a real HTTP server on 127.0.0.1 standing in for a jtrace server; behave answers.
type receiver struct {
	*httptest.Server
	mu      sync.Mutex
	batches [][]map[string]any
	raw     [][]byte
}

func newReceiver(t *testing.T, behave func(w http.ResponseWriter, r *http.Request, events int)) *receiver {
	t.Helper()
	rc := &receiver{}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		var body struct {
			Events []struct {
				Event map[string]any `json:"event"`
			} `json:"events"`
		}
		_ = json.Unmarshal(data, &body)
		events := make([]map[string]any, len(body.Events))
		for i, e := range body.Events {
			events[i] = e.Event
		}
		rc.mu.Lock()
		rc.batches = append(rc.batches, events)
		rc.raw = append(rc.raw, data)
		rc.mu.Unlock()
		if behave == nil {
			behave = acceptAll
		}
		behave(w, r, len(events))
	}))
	t.Cleanup(rc.Server.Close)
	return rc
}

func acceptAll(w http.ResponseWriter, _ *http.Request, events int) {
	results := make([]map[string]any, events)
	for i := range results {
		results[i] = map[string]any{"status": "accepted", "duplicate": false}
	}
	answer(w, 200, map[string]any{"data": map[string]any{"results": results}})
}

func answer(w http.ResponseWriter, status int, body any) {
	data, _ := json.Marshal(body)
	w.Header().Set("content-type", "application/json")
	w.Header().Set("content-length", fmt.Sprint(len(data)))
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func (rc *receiver) requests() int {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return len(rc.batches)
}

func (rc *receiver) events() []map[string]any {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var out []map[string]any
	for _, b := range rc.batches {
		out = append(out, b...)
	}
	return out
}

func testRecorder(t *testing.T, endpoint string, cfg Config) (*Recorder, *diagnostics) {
	t.Helper()
	d := &diagnostics{}
	cfg.Endpoint, cfg.APIKey, cfg.ServiceName, cfg.Environment = endpoint, "jtk_test", "go-test", "test"
	cfg.OnDiagnostic = d.add
	return New(cfg), d
}

type diagnostics struct {
	mu   sync.Mutex
	list []Diagnostic
}

func (d *diagnostics) add(x Diagnostic) {
	d.mu.Lock()
	d.list = append(d.list, x)
	d.mu.Unlock()
}

func (d *diagnostics) kinds() map[string]int {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := map[string]int{}
	for _, x := range d.list {
		out[x.Kind]++
	}
	return out
}

func closeWithin(t *testing.T, r *Recorder, limit time.Duration) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start := time.Now()
	err := r.Close(ctx)
	// Generous: Close must end within its own deadline plus the sender's exit, never a request timeout.
	if took := time.Since(start); took > limit+2*time.Second {
		t.Fatalf("Close took %s with a %s deadline", took, limit)
	}
	return err
}

func checkAddsUp(t *testing.T, c Counters) {
	t.Helper()
	var byCause int64
	for _, n := range c.DroppedByCause {
		byCause += n
	}
	if c.Recorded != c.Sent+c.Rejected+c.Dropped+c.Queued+c.InFlight || byCause != c.Dropped {
		t.Fatalf("counters do not add up: %+v", c)
	}
}
