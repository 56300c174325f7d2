package jtrace

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func recordN(r *Recorder, n int) {
	j := r.StartJourney(Entity{"order", "ord_1"})
	for i := 0; i < n; i++ {
		j.Record(Received, "receive-order", Fields{Input: map[string]any{"i": i}})
	}
}

func TestSendsInBatchesOfAtMost100AndCountersAddUp(t *testing.T) {
	rc := newReceiver(t, nil)
	r, _ := testRecorder(t, rc.URL, Config{})
	recordN(r, 250)
	if err := closeWithin(t, r, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	c := r.Counters()
	checkAddsUp(t, c)
	if c.Sent != 250 || len(rc.events()) != 250 {
		t.Fatalf("sent %d, received %d", c.Sent, len(rc.events()))
	}
	for _, b := range rc.batches {
		if len(b) > 100 {
			t.Fatalf("a batch of %d", len(b))
		}
	}
}

func TestServerDownDropsAtCloseWithoutHoldingTheHost(t *testing.T) {
	listener, _ := net.Listen("tcp", "127.0.0.1:0")
	endpoint := "http://" + listener.Addr().String()
	listener.Close() // nothing listens there now
	r, d := testRecorder(t, endpoint, Config{})
	start := time.Now()
	recordN(r, 20000)
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("recording took %s", took)
	}
	err := closeWithin(t, r, time.Second)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Close should say what was left: %v", err)
	}
	c := r.Counters()
	checkAddsUp(t, c)
	if c.Sent != 0 || c.Dropped != 20000 || c.Queued != 0 || c.DroppedByCause["queue_full"] != 10000 || c.DroppedByCause["shutdown"] != 10000 {
		t.Fatalf("counters %+v", c)
	}
	if c.RequestFailures == 0 || d.kinds()["transport_error"] == 0 {
		t.Fatalf("no failure seen: %+v", c)
	}
}

func TestSlowServerIsCutAtTheRequestTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	r, _ := testRecorder(t, rc.URL, Config{RequestTimeout: 200 * time.Millisecond, FlushInterval: 10 * time.Millisecond})
	recordN(r, 3)
	time.Sleep(600 * time.Millisecond)
	c := r.Counters()
	if c.RequestFailures == 0 {
		t.Fatalf("the slow request was not cut: %+v", c)
	}
	_ = closeWithin(t, r, 300*time.Millisecond)
	c = r.Counters()
	checkAddsUp(t, c)
	if c.DroppedByCause["shutdown"] != 3 {
		t.Fatalf("counters %+v", c)
	}
}

func TestServerErrorIsResent(t *testing.T) {
	var calls atomic.Int32
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if calls.Add(1) == 1 {
			answer(w, 500, map[string]any{"error": map[string]any{"code": "internal_error"}})
			return
		}
		acceptAll(w, r, n)
	})
	r, _ := testRecorder(t, rc.URL, Config{FlushInterval: 10 * time.Millisecond})
	recordN(r, 5)
	if err := closeWithin(t, r, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	c := r.Counters()
	checkAddsUp(t, c)
	if c.Sent != 5 || c.RequestFailures != 1 || rc.requests() != 2 {
		t.Fatalf("counters %+v, requests %d", c, rc.requests())
	}
}

func TestPerEventRefusalsAreRejectedOrResent(t *testing.T) {
	var calls atomic.Int32
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if calls.Add(1) == 1 {
			answer(w, 200, map[string]any{"data": map[string]any{"results": []any{
				map[string]any{"status": "rejected", "error": map[string]any{"code": "invalid_event", "httpStatus": 400}},
				map[string]any{"status": "rejected", "error": map[string]any{"code": "internal_error", "httpStatus": 503}},
			}}})
			return
		}
		acceptAll(w, r, n)
	})
	r, _ := testRecorder(t, rc.URL, Config{FlushInterval: 10 * time.Millisecond, ResendDelay: 10 * time.Millisecond})
	recordN(r, 2)
	if err := closeWithin(t, r, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	c := r.Counters()
	checkAddsUp(t, c)
	if c.Rejected != 1 || c.Sent != 1 || c.Resent != 1 {
		t.Fatalf("counters %+v", c)
	}
}

func TestTooManyRequestsIsNotResent(t *testing.T) {
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		answer(w, 429, map[string]any{"error": map[string]any{"code": "rate_limited"}})
	})
	r, _ := testRecorder(t, rc.URL, Config{FlushInterval: 10 * time.Millisecond})
	recordN(r, 4)
	_ = closeWithin(t, r, 2*time.Second)
	c := r.Counters()
	checkAddsUp(t, c)
	if c.DroppedByCause["request_refused"] != 4 || rc.requests() != 1 {
		t.Fatalf("counters %+v, requests %d", c, rc.requests())
	}
}

func TestEndlessAnswerIsReadUpTo1MiB(t *testing.T) {
	var written atomic.Int64
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.WriteHeader(200)
		chunk := []byte(strings.Repeat("[", 64*1024))
		for i := 0; i < 100000; i++ { // bounded: 6 GB at most, ends when the client leaves
			if _, err := w.Write(chunk); err != nil {
				return
			}
			written.Add(int64(len(chunk)))
			w.(http.Flusher).Flush()
		}
	})
	r, _ := testRecorder(t, rc.URL, Config{FlushInterval: 10 * time.Millisecond})
	recordN(r, 3)
	if err := closeWithin(t, r, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	c := r.Counters()
	checkAddsUp(t, c)
	if c.Sent != 3 || c.Unconfirmed != 3 {
		t.Fatalf("counters %+v", c)
	}
	if written.Load() > 64<<20 {
		t.Fatalf("the server wrote %d bytes before the client left", written.Load())
	}
}

func TestThreeGigabyteAnswerIsNotBuffered(t *testing.T) {
	var written atomic.Int64
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("content-length", "3221225472")
		w.WriteHeader(200)
		chunk := make([]byte, 1<<20)
		for i := 0; i < 3072; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			written.Add(int64(len(chunk)))
		}
	})
	r, _ := testRecorder(t, rc.URL, Config{FlushInterval: 10 * time.Millisecond})
	recordN(r, 2)
	if err := closeWithin(t, r, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	c := r.Counters()
	if c.Sent != 2 || c.Unconfirmed != 2 || written.Load() > 256<<20 {
		t.Fatalf("counters %+v, written %d", c, written.Load())
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	elsewhere := newReceiver(t, nil)
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		http.Redirect(w, r, elsewhere.URL+"/v1/events/batch", http.StatusTemporaryRedirect)
	})
	r, _ := testRecorder(t, rc.URL, Config{FlushInterval: 10 * time.Millisecond})
	recordN(r, 2)
	_ = closeWithin(t, r, 2*time.Second)
	c := r.Counters()
	checkAddsUp(t, c)
	if elsewhere.requests() != 0 || c.DroppedByCause["request_refused"] != 2 {
		t.Fatalf("counters %+v, redirected requests %d", c, elsewhere.requests())
	}
}

func TestNothingIsSentAfterClose(t *testing.T) {
	rc := newReceiver(t, nil)
	r, _ := testRecorder(t, rc.URL, Config{FlushInterval: 10 * time.Millisecond})
	recordN(r, 1)
	if err := closeWithin(t, r, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	before := rc.requests()
	recordN(r, 5)
	time.Sleep(100 * time.Millisecond)
	if rc.requests() != before {
		t.Fatal("a request after Close")
	}
	c := r.Counters()
	checkAddsUp(t, c)
	if c.DroppedByCause["shutdown"] != 5 || r.Flush(context.Background()) != nil && !errors.Is(r.Flush(context.Background()), ErrClosed) {
		t.Fatalf("counters %+v", c)
	}
}

func TestBreakerOpensAfterFailuresInARow(t *testing.T) {
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		answer(w, 503, map[string]any{})
	})
	r, d := testRecorder(t, rc.URL, Config{FlushInterval: 5 * time.Millisecond, BreakerThreshold: 2, BreakerCooldown: time.Hour})
	recordN(r, 1)
	deadline := time.Now().Add(5 * time.Second)
	for r.Counters().BreakerOpens == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	requests := rc.requests()
	time.Sleep(300 * time.Millisecond)
	if r.Counters().BreakerOpens != 1 || rc.requests() != requests || requests != 2 || d.kinds()["breaker_opened"] != 1 {
		t.Fatalf("counters %+v, requests %d", r.Counters(), rc.requests())
	}
	_ = closeWithin(t, r, 100*time.Millisecond)
}

func TestQueueIsBoundedByBytesCountingWhatIsInFlight(t *testing.T) {
	release := make(chan struct{})
	var once atomic.Bool
	unblock := func() {
		if once.CompareAndSwap(false, true) {
			close(release)
		}
	}
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		<-release
		acceptAll(w, r, n)
	})
	t.Cleanup(unblock)
	r, _ := testRecorder(t, rc.URL, Config{FlushInterval: 5 * time.Millisecond, MaxQueueBytes: 1 << 20, BatchSize: 1})
	j := r.StartJourney(Entity{"order", "o"})
	part := strings.Repeat("x", 50*1024)
	big := []string{part, part, part, part} // 200 KiB: one string would be cut at 64 Ki units
	j.Record(Received, "first", Fields{Input: big})
	deadline := time.Now().Add(5 * time.Second)
	for r.Counters().InFlight == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	for i := 0; i < 6; i++ {
		j.Record(Received, "next", Fields{Input: big})
	}
	c := r.Counters()
	// 1 MiB holds five events of 200 KiB: one in flight and four queued; the oldest two queued went.
	if c.InFlight != 1 || c.Queued != 4 || c.DroppedByCause["queue_full"] != 2 {
		t.Fatalf("counters %+v", c)
	}
	unblock()
	_ = closeWithin(t, r, 5*time.Second)
	checkAddsUp(t, r.Counters())
}

func TestADiagnosticCallbackMayReadCountersAndRecord(t *testing.T) {
	rc := newReceiver(t, func(w http.ResponseWriter, r *http.Request, n int) {
		answer(w, 429, map[string]any{"error": map[string]any{"code": "rate_limited"}})
	})
	var r *Recorder
	var seen atomic.Int32
	r = New(Config{Endpoint: rc.URL, APIKey: "k", ServiceName: "s", Environment: "e", FlushInterval: 5 * time.Millisecond,
		OnDiagnostic: func(d Diagnostic) {
			if seen.Add(1) == 1 {
				_ = r.Counters()
				r.StartJourney(Entity{"order", "from-callback"}).Record(Received, "noted", Fields{})
			}
		}})
	recordN(r, 1)
	if err := closeWithin(t, r, 3*time.Second); err != nil {
		t.Fatal(err)
	}
	c := r.Counters()
	checkAddsUp(t, c)
	if seen.Load() == 0 || c.Recorded != 2 {
		t.Fatalf("counters %+v", c)
	}
}
