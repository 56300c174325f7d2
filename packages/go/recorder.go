// Package jtrace records what happens to a record (an order, a payout) as it crosses services
// and sends it to a self-hosted jtrace server (event protocol 0.1). It never hurts the host:
// nothing it does panics into the host's code or changes what the host's functions return.
package jtrace

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"
)

// SDKVersion is sent with every event.
const SDKVersion = "0.1.0"

// ErrClosed is returned by Flush after Close.
var ErrClosed = errors.New("jtrace: recorder closed")

// Config of a recorder. Endpoint, APIKey, ServiceName and Environment are required: without one
// the recorder runs the host's functions and records nothing. Zero values take the defaults; a
// value out of range is reported (a configuration_error diagnostic) and its default used.
type Config struct {
	Endpoint, APIKey, ServiceName, Environment string
	// Disabled makes a recorder that records nothing.
	Disabled bool
	// BatchSize: events per request, 1-100 (100).
	BatchSize int
	// FlushInterval: how often a partial batch is sent (1 s).
	FlushInterval time.Duration
	// MaxQueueSize: events held at most, the oldest dropped beyond it (10,000).
	MaxQueueSize int
	// MaxQueueBytes: envelope bytes held at most, queued and being sent together (64 MiB).
	MaxQueueBytes int
	// RequestTimeout: the whole exchange of a request (10 s).
	RequestTimeout time.Duration
	// BreakerThreshold failed requests in a row open the breaker for BreakerCooldown (5, 30 s).
	BreakerThreshold int
	BreakerCooldown  time.Duration
	// ResendDelay: before resending an event refused with 500 or above, times its sends (500 ms).
	ResendDelay time.Duration
	// MaxEventBytes: the largest envelope; the server's MAX_EVENT_PAYLOAD_BYTES (262,144).
	MaxEventBytes int
	// RedactionPaths: operator rules (customer.ssn, *.password, items[*].card, **.x-token).
	RedactionPaths []string
	// CaptureStack sends an error's StackTrace() (masked); the server keeps it only under full capture.
	CaptureStack bool
	// JourneyIDSecret (32 bytes or more) derives journey ids from the environment and entity.
	JourneyIDSecret string
	Deployment      *Deployment
	// OnDiagnostic receives every diagnostic; by default one log line per kind per minute.
	OnDiagnostic func(Diagnostic)
	// PeerPropagation also writes the peer protocol's carriers when injecting.
	PeerPropagation bool
}

// Deployment is sent with every event.
type Deployment struct{ GitCommit, Version, Image string }

// Recorder records journeys and sends them from its own goroutine; safe for concurrent use.
type Recorder struct {
	builder    *builder
	delivery   *delivery
	secret     string
	peer       bool
	report     func(Diagnostic)
	disabledMu sync.Mutex
	disabled   Counters
}

func reporter(callback func(Diagnostic)) func(Diagnostic) {
	var mu sync.Mutex
	last := map[string]time.Time{}
	return func(d Diagnostic) {
		defer func() { _ = recover() }()
		if callback != nil {
			callback(d)
			return
		}
		mu.Lock()
		due := time.Since(last[d.Kind]) >= time.Minute
		if due {
			last[d.Kind] = time.Now()
		}
		mu.Unlock()
		if due {
			log.Printf("jtrace %s: %s", d.Kind, d.Message)
		}
	}
}

func batchURL(endpoint string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return "", false
	}
	path := u.Path
	if !strings.HasSuffix(path, "/") {
		path += "/"
	}
	u.Path, u.RawQuery, u.Fragment, u.RawPath = path+"v1/events/batch", "", "", ""
	return u.String(), true
}

func intOption(value, fallback, low, high int, name string, problems *[]string) int {
	if value == 0 {
		return fallback
	}
	if value < low || value > high {
		*problems = append(*problems, fmt.Sprintf("%s must be from %d to %d; using %d", name, low, high, fallback))
		return fallback
	}
	return value
}

func durationOption(value, fallback, low, high time.Duration, name string, problems *[]string) time.Duration {
	if value == 0 {
		return fallback
	}
	if value < low || value > high {
		*problems = append(*problems, fmt.Sprintf("%s must be from %s to %s; using %s", name, low, high, fallback))
		return fallback
	}
	return value
}

// New makes a recorder. It never fails: problems are diagnostics.
func New(cfg Config) *Recorder {
	report := reporter(cfg.OnDiagnostic)
	r := &Recorder{report: report, peer: cfg.PeerPropagation}
	r.disabled.DroppedByCause = map[string]int64{}
	for _, cause := range dropCauses {
		r.disabled.DroppedByCause[cause] = 0
	}
	var fatal, warnings []string
	endpoint, ok := batchURL(cfg.Endpoint)
	if !ok {
		fatal = append(fatal, "Endpoint must be an http(s) URL")
	}
	key := strings.TrimSpace(cfg.APIKey)
	if key == "" {
		fatal = append(fatal, "APIKey is required")
	}
	service := strings.TrimSpace(cfg.ServiceName)
	if service == "" {
		fatal = append(fatal, "ServiceName is required")
	}
	environment := strings.TrimSpace(cfg.Environment)
	if environment == "" {
		fatal = append(fatal, "Environment is required")
	}
	s := settings{
		url: endpoint, apiKey: key,
		batchSize:        intOption(cfg.BatchSize, maxBatchEvents, 1, maxBatchEvents, "BatchSize", &warnings),
		maxQueueSize:     intOption(cfg.MaxQueueSize, 10000, 1, 10000000, "MaxQueueSize", &warnings),
		maxQueueBytes:    intOption(cfg.MaxQueueBytes, 64<<20, 1<<20, 4<<30, "MaxQueueBytes", &warnings),
		flushInterval:    durationOption(cfg.FlushInterval, time.Second, time.Millisecond, time.Hour, "FlushInterval", &warnings),
		requestTimeout:   durationOption(cfg.RequestTimeout, 10*time.Second, time.Millisecond, 10*time.Minute, "RequestTimeout", &warnings),
		breakerThreshold: intOption(cfg.BreakerThreshold, 5, 1, 1000, "BreakerThreshold", &warnings),
		breakerCooldown:  durationOption(cfg.BreakerCooldown, 30*time.Second, time.Millisecond, time.Hour, "BreakerCooldown", &warnings),
		resendDelay:      durationOption(cfg.ResendDelay, 500*time.Millisecond, time.Millisecond, time.Minute, "ResendDelay", &warnings),
	}
	maxBytes := intOption(cfg.MaxEventBytes, defaultMaxEventBytes, minMaxEventBytes, maxMaxEventBytes, "MaxEventBytes", &warnings)
	red := newRedactor(cfg.RedactionPaths)
	for _, rule := range red.malformed {
		warnings = append(warnings, fmt.Sprintf("redaction rule %q is malformed and protects nothing", rule))
	}
	if cfg.JourneyIDSecret != "" {
		if len(cfg.JourneyIDSecret) >= minJourneyIDSecretBytes {
			r.secret = cfg.JourneyIDSecret
		} else {
			warnings = append(warnings, "JourneyIDSecret must be at least 32 bytes; journey ids are random instead")
		}
	}
	for _, problem := range append(fatal, warnings...) {
		report(Diagnostic{Kind: "configuration_error", Message: "jtrace recorder: " + problem + ".", Detail: map[string]any{"problem": problem}})
	}
	hostname, _ := os.Hostname()
	rt := newObject(5)
	rt.set("language", "go")
	rt.set("version", fitField(runtime.Version(), runtimeFieldMax["version"]))
	rt.set("hostname", fitField(hostname, runtimeFieldMax["hostname"]))
	rt.set("processId", int64(os.Getpid()))
	sdk := newObject(2)
	sdk.set("name", "jtrace-go")
	sdk.set("version", SDKVersion)
	rt.set("sdk", sdk)
	var deployment *object
	if cfg.Deployment != nil {
		deployment = newObject(3)
		for _, f := range []struct{ wire, value string }{{"gitCommit", cfg.Deployment.GitCommit}, {"version", cfg.Deployment.Version}, {"image", cfg.Deployment.Image}} {
			if f.value != "" {
				deployment.set(f.wire, fitField(f.value, deploymentFieldMax[f.wire]))
			}
		}
	}
	r.builder = &builder{service: fitField(service, eventFieldMax["service"]), environment: environment, redactor: red,
		captureStack: cfg.CaptureStack, maxEventBytes: maxBytes, runtime: rt, deployment: deployment, report: report,
		reported: map[string]bool{}}
	if len(fatal) == 0 && !cfg.Disabled {
		r.delivery = newDelivery(s, report)
	}
	return r
}

func (r *Recorder) journeyIDFor(e Entity) string {
	if r.secret == "" {
		return randomJourneyID()
	}
	if id, ok := DeriveJourneyID(r.secret, r.builder.environment, e.Type, e.ID); ok {
		return id
	}
	r.report(Diagnostic{Kind: "journey_id_not_derived", Message: "An entity or environment is not UTF-8; the journey id is random."})
	return randomJourneyID()
}

// StartJourney begins a journey for an entity.
func (r *Recorder) StartJourney(entity Entity, opts ...JourneyOption) *Journey {
	j := &Journey{rec: r, entity: entity.orUnknown()}
	for _, opt := range opts {
		opt(j)
	}
	if j.id == "" {
		j.id = r.journeyIDFor(j.entity)
	}
	return j
}

// ContinueJourney joins the journey a context carries (from ExtractHTTPContext or the like). A
// context's own entity wins; a peer context may carry none, and then entity is used.
func (r *Recorder) ContinueJourney(c JourneyContext, entity Entity, opts ...JourneyOption) *Journey {
	e := entity.orUnknown()
	if c.Entity != nil {
		e = *c.Entity
	}
	j := &Journey{rec: r, id: c.JourneyID, entity: e, lastEventID: c.ParentEventID}
	for _, opt := range opts {
		opt(j)
	}
	if j.id == "" {
		j.id = r.journeyIDFor(e)
	}
	return j
}

func (r *Recorder) record(j *Journey, op Operation, name string, f *Fields, label string, hasLabel bool) string {
	if r.delivery == nil {
		r.disabledMu.Lock()
		r.disabled.Recorded++
		r.disabled.Dropped++
		r.disabled.DroppedByCause["disabled"]++
		r.disabledMu.Unlock()
		return ""
	}
	b, ok := r.build(j, op, name, f, label, hasLabel)
	r.delivery.recordOne(b, ok)
	if !ok {
		return ""
	}
	return b.id
}

func (r *Recorder) build(j *Journey, op Operation, name string, f *Fields, label string, hasLabel bool) (b built, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
			r.report(Diagnostic{Kind: "internal_error", Message: "An event could not be captured."})
		}
	}()
	return r.builder.build(j.id, entityPair{j.entity.Type, j.entity.ID}, label, hasLabel, op, name, f), true
}

// Flush sends what is queued and waits until it is settled or ctx ends.
func (r *Recorder) Flush(ctx context.Context) error {
	if r == nil || r.delivery == nil {
		return nil
	}
	return r.delivery.flush(ctx)
}

// Close flushes within ctx, then stops: what is left is dropped and counted (cause shutdown),
// a request under way is cancelled, and nothing is sent afterwards. After Close,
// Sent + Rejected + Dropped == Recorded.
func (r *Recorder) Close(ctx context.Context) error {
	if r == nil || r.delivery == nil {
		return nil
	}
	return r.delivery.close(ctx)
}

// Counters is a snapshot of what the recorder did.
func (r *Recorder) Counters() Counters {
	if r.delivery == nil {
		r.disabledMu.Lock()
		defer r.disabledMu.Unlock()
		out := r.disabled
		out.DroppedByCause = map[string]int64{}
		for k, v := range r.disabled.DroppedByCause {
			out.DroppedByCause[k] = v
		}
		return out
	}
	return r.delivery.counters()
}
