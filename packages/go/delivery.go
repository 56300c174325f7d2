package jtrace

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Delivery through POST /v1/events/batch (event protocol 1.1, 8) from one goroutine: a queue
// bounded by events and bytes (the batch in flight counted too) that drops the oldest; batches of
// at most 100; the client retry rule of 8.4; a circuit breaker; Flush and Close that never wait
// past their context. Every recorded event ends in exactly one of sent, rejected or dropped.

const (
	resendWindow = 30 * time.Second
	maxSends     = 10
	// A full batch's verdicts are a few tens of kilobytes; an answer past this is not a jtrace answer.
	maxResponseBytes = 1 << 20
)

var dropCauses = []string{"queue_full", "retry_exhausted", "request_refused", "shutdown", "disabled", "capture_failed"}

// Counters: Recorded == Sent + Rejected + Dropped + Queued + InFlight at every moment.
type Counters struct {
	Recorded, Sent, Rejected, Dropped int64
	DroppedByCause                    map[string]int64
	Unconfirmed, Queued, InFlight     int64
	Requests, RequestFailures         int64
	Resent, BreakerOpens              int64
}

type pending struct {
	built       built
	sends       int
	firstRefuse time.Time
	notBefore   time.Time
}

type settings struct {
	url, apiKey                   string
	batchSize, maxQueueSize       int
	maxQueueBytes                 int
	flushInterval, requestTimeout time.Duration
	breakerThreshold              int
	breakerCooldown, resendDelay  time.Duration
}

type delivery struct {
	s        settings
	report   func(Diagnostic)
	client   *http.Client
	mu       sync.Mutex
	c        Counters
	queue    []*pending
	queued   int // bytes queued
	flight   []*pending
	flightB  int
	closed   bool
	stopping bool
	flushing int
	breaker  *breaker
	// Diagnostics noted under the lock, reported once it is released: a callback may read the
	// counters or record, which takes the lock again.
	diags   []Diagnostic
	wake    chan struct{}
	changed chan struct{}
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
}

func newDelivery(s settings, report func(Diagnostic)) *delivery {
	d := &delivery{s: s, report: report, wake: make(chan struct{}, 1), changed: make(chan struct{}), done: make(chan struct{})}
	d.c.DroppedByCause = map[string]int64{}
	for _, cause := range dropCauses {
		d.c.DroppedByCause[cause] = 0
	}
	d.breaker = &breaker{threshold: s.breakerThreshold, cooldown: s.breakerCooldown, state: "closed", onOpen: d.opened}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	transport := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: s.requestTimeout, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 2,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	d.client = &http.Client{
		Transport: transport,
		// A redirect is never followed: following a 307 sends the batch to another origin.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	go d.run()
	return d
}

func (d *delivery) note(x Diagnostic) { d.diags = append(d.diags, x) }

// unlock releases the lock, then reports what was noted under it.
func (d *delivery) unlock() {
	diags := d.diags
	d.diags = nil
	d.mu.Unlock()
	for _, x := range diags {
		d.report(x)
	}
}

// notify wakes Flush waiters; called under the lock.
func (d *delivery) notify() {
	close(d.changed)
	d.changed = make(chan struct{})
}

func (d *delivery) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

func (d *delivery) opened(failures int) {
	d.c.BreakerOpens++
	d.note(Diagnostic{Kind: "breaker_opened",
		Message: fmt.Sprintf("%d requests to the jtrace server failed in a row; sending pauses for %s.", failures, d.s.breakerCooldown),
		Detail:  map[string]any{"failures": failures, "cooldownMs": d.s.breakerCooldown.Milliseconds()}})
}

// drop counts events that end dropped; under the lock.
func (d *delivery) drop(count int, cause string) {
	if count <= 0 {
		return
	}
	d.c.Dropped += int64(count)
	d.c.DroppedByCause[cause] += int64(count)
	d.note(Diagnostic{Kind: "dropped", Message: fmt.Sprintf("%d event(s) dropped: %s.", count, cause),
		Detail: map[string]any{"count": count, "cause": cause}})
}

func (d *delivery) trim() {
	dropped := 0
	// A lone event larger than the byte bound is still sent when nothing else is held.
	for len(d.queue) > d.s.maxQueueSize || (d.queued+d.flightB > d.s.maxQueueBytes && len(d.queue) > d.keepAtLeast()) {
		d.queued -= len(d.queue[0].built.json)
		d.queue[0] = nil
		d.queue = d.queue[1:]
		dropped++
	}
	d.drop(dropped, "queue_full")
	d.c.Queued = int64(len(d.queue))
}

func (d *delivery) keepAtLeast() int {
	if len(d.flight) > 0 {
		return 0
	}
	return 1
}

func (d *delivery) recordOne(b built, ok bool) {
	d.mu.Lock()
	defer d.unlock()
	d.c.Recorded++
	if !ok {
		d.drop(1, "capture_failed")
		return
	}
	if d.closed || d.stopping {
		d.drop(1, "shutdown")
		return
	}
	d.queue = append(d.queue, &pending{built: b})
	d.queued += len(b.json)
	d.trim()
	if len(d.queue) >= d.s.batchSize {
		d.poke()
	}
}

func (d *delivery) take(now time.Time) []*pending {
	var batch, later []*pending
	i := 0
	for ; i < len(d.queue) && len(batch) < d.s.batchSize; i++ {
		item := d.queue[i]
		if item.notBefore.After(now) {
			later = append(later, item)
		} else {
			batch = append(batch, item)
			d.queued -= len(item.built.json)
		}
	}
	rest := append(later, d.queue[i:]...)
	d.queue = append([]*pending(nil), rest...)
	d.c.Queued = int64(len(d.queue))
	return batch
}

func (d *delivery) requeueFront(items []*pending) {
	for _, item := range items {
		d.queued += len(item.built.json)
	}
	d.queue = append(append([]*pending(nil), items...), d.queue...)
	d.trim()
}

func (d *delivery) run() {
	defer close(d.done)
	last := time.Now()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		d.mu.Lock()
		var batch []*pending
		var wait time.Duration
		for batch == nil {
			if d.closed {
				d.unlock()
				return
			}
			now := time.Now()
			due := d.flushing > 0 || len(d.queue) >= d.s.batchSize || now.Sub(last) >= d.s.flushInterval
			if len(d.queue) > 0 && due {
				if d.breaker.canSend(now) {
					if taken := d.take(now); len(taken) > 0 {
						batch = taken
						break
					}
					wait = 20 * time.Millisecond // every waiting event sits out a resend delay
				} else {
					wait = d.breaker.wait(now)
				}
			} else if len(d.queue) > 0 {
				wait = d.s.flushInterval - now.Sub(last)
			} else {
				wait = d.s.flushInterval
			}
			if wait < 5*time.Millisecond {
				wait = 5 * time.Millisecond
			}
			if wait > d.s.flushInterval {
				wait = d.s.flushInterval
			}
			d.unlock()
			if !timer.Stop() {
				select {
				case <-timer.C:
				default:
				}
			}
			timer.Reset(wait)
			select {
			case <-d.wake:
			case <-timer.C:
			case <-d.ctx.Done():
			}
			d.mu.Lock()
		}
		d.flight = batch
		d.flightB = 0
		for _, item := range batch {
			d.flightB += len(item.built.json)
			item.sends++
		}
		d.c.InFlight = int64(len(batch))
		d.c.Requests++
		d.unlock()

		status, body, reason := d.exchange(batch)
		last = time.Now()

		d.mu.Lock()
		if len(d.flight) > 0 && d.flight[0] == batch[0] {
			d.flight, d.flightB, d.c.InFlight = nil, 0, 0
			if d.closed {
				d.drop(len(batch), "shutdown")
			} else {
				d.settle(batch, status, body, reason)
			}
		}
		d.notify()
		d.unlock()
	}
}

func (d *delivery) counters() Counters {
	d.mu.Lock()
	defer d.unlock()
	out := d.c
	out.DroppedByCause = make(map[string]int64, len(d.c.DroppedByCause))
	for k, v := range d.c.DroppedByCause {
		out.DroppedByCause[k] = v
	}
	return out
}

// flush waits until nothing is queued or in flight, or ctx ends.
func (d *delivery) flush(ctx context.Context) error {
	d.mu.Lock()
	d.flushing++
	d.poke()
	defer func() {
		d.mu.Lock()
		d.flushing--
		d.unlock()
	}()
	for len(d.queue) > 0 || len(d.flight) > 0 {
		if d.closed {
			d.unlock()
			return ErrClosed
		}
		changed := d.changed
		d.unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			d.mu.Lock()
			left := len(d.queue) + len(d.flight)
			d.unlock()
			return fmt.Errorf("jtrace: %d event(s) not delivered: %w", left, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
		d.mu.Lock()
	}
	d.unlock()
	return nil
}

func (d *delivery) close(ctx context.Context) error {
	d.mu.Lock()
	if d.closed {
		d.unlock()
		return nil
	}
	d.stopping = true
	d.unlock()
	err := d.flush(ctx)
	d.mu.Lock()
	d.closed = true
	// Events of a request still under way are counted now; its late answer is ignored.
	d.drop(len(d.flight), "shutdown")
	d.flight, d.flightB, d.c.InFlight = nil, 0, 0
	d.drop(len(d.queue), "shutdown")
	d.queue, d.queued, d.c.Queued = nil, 0, 0
	d.notify()
	d.unlock()
	d.cancel()
	// The sender ends at once: its request, if any, was just cancelled.
	select {
	case <-d.done:
	case <-time.After(time.Second):
	}
	d.client.CloseIdleConnections()
	return err
}
