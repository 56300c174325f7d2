package jtrace

import (
	"context"
	"sync"
	"time"
)

// Operation is one of the protocol's 11 operations.
type Operation string

const (
	Received    Operation = "received"
	Transformed Operation = "transformed"
	Validated   Operation = "validated"
	Persisted   Operation = "persisted"
	Published   Operation = "published"
	Consumed    Operation = "consumed"
	Delivered   Operation = "delivered"
	Retried     Operation = "retried"
	Failed      Operation = "failed"
	Completed   Operation = "completed"
	Identified  Operation = "identified"
)

// Entity is the record a journey follows.
type Entity struct{ Type, ID string }

func (e Entity) orUnknown() Entity {
	if e.Type == "" {
		e.Type = "unknown"
	}
	if e.ID == "" {
		e.ID = "unknown"
	}
	return e
}

// Fields of an explicit step (Journey.Record). A nil Input, Output, Error or Metadata is left out.
type Fields struct {
	Input, Output, Metadata any
	// Error: an error, a string, or any value (captured and redacted as text).
	Error                                   any
	Aliases                                 map[string]string
	DisplayableAliases                      []string
	Duration                                *time.Duration
	Timestamp                               time.Time
	ParentEventID, MessageID, CorrelationID string
}

// Journey is one record's path; safe for concurrent use.
type Journey struct {
	rec         *Recorder
	id          string
	entity      Entity
	mu          sync.Mutex
	label       string
	hasLabel    bool
	aliases     map[string]string
	displayable []string
	lastEventID string
}

// JourneyOption sets a journey's label, aliases or id when it starts.
type JourneyOption func(*Journey)

// WithLabel: public display text sent with the next event (no personal data).
func WithLabel(text string) JourneyOption {
	return func(j *Journey) { j.label, j.hasLabel = text, true }
}

// WithAliases ride on the journey's first event; only the displayable types are shown in full.
func WithAliases(aliases map[string]string, displayable ...string) JourneyOption {
	return func(j *Journey) { j.aliases, j.displayable = aliases, displayable }
}

// WithJourneyID uses a known journey id.
func WithJourneyID(id string) JourneyOption { return func(j *Journey) { j.id = id } }

// ID is the journey id.
func (j *Journey) ID() string {
	if j == nil {
		return ""
	}
	return j.id
}

// Entity is the entity the journey follows.
func (j *Journey) Entity() Entity {
	if j == nil {
		return Entity{}
	}
	return j.entity
}

// Context is what propagation carries to the next service (never aliases).
func (j *Journey) Context() JourneyContext {
	j.mu.Lock()
	defer j.mu.Unlock()
	e := j.entity
	return JourneyContext{JourneyID: j.id, Entity: &e, ParentEventID: j.lastEventID}
}

// Label sets the label sent with the next event.
func (j *Journey) Label(text string) {
	if j == nil {
		return
	}
	j.mu.Lock()
	j.label, j.hasLabel = text, true
	j.mu.Unlock()
}

// Record records any operation with explicit fields and returns the event id ("" when nothing
// was recorded).
func (j *Journey) Record(op Operation, name string, f Fields) (id string) {
	if j == nil || j.rec == nil {
		return ""
	}
	defer func() {
		if recover() != nil {
			id = ""
		}
	}()
	j.mu.Lock()
	label, hasLabel := j.label, j.hasLabel
	j.label, j.hasLabel = "", false
	if j.aliases != nil && f.Aliases == nil {
		f.Aliases, f.DisplayableAliases = j.aliases, j.displayable
		j.aliases, j.displayable = nil, nil
	}
	if f.ParentEventID == "" {
		f.ParentEventID = j.lastEventID
	}
	j.mu.Unlock()
	id = j.rec.record(j, op, name, &f, label, hasLabel)
	if id != "" {
		j.mu.Lock()
		j.lastEventID = id
		j.mu.Unlock()
	}
	return id
}

// Identify records an `identified` step; only the alias types in displayable are shown in full.
func (j *Journey) Identify(aliases map[string]string, displayable ...string) string {
	return j.Record(Identified, "identify", Fields{Aliases: aliases, DisplayableAliases: displayable})
}

// Fail records a terminal failure (`failed`), e.g. a move to a dead-letter queue.
func (j *Journey) Fail(name string, err any, opts ...StepOption) string {
	if err == nil {
		err = "failed"
	}
	o := stepOptions(opts)
	f := o.fields()
	f.Error = err
	return j.Record(Failed, name, f)
}

// Finish records that the journey completed.
func (j *Journey) Finish(name string, opts ...StepOption) string {
	if name == "" {
		name = "complete"
	}
	return j.Record(Completed, name, stepOptions(opts).fields())
}

type journeyKey struct{}

// WithJourney returns a context carrying the journey: the step wrappers, the HTTP transport and
// anything called with it record on that journey.
func WithJourney(ctx context.Context, j *Journey) context.Context {
	return context.WithValue(ctx, journeyKey{}, []*Journey{j})
}

// Across returns a context carrying several journeys, for one operation that belongs to all of
// them (a digest written for three customers): a wrapper runs its function once and each journey
// gets an event of its own. Propagation carries the first.
func Across(ctx context.Context, journeys ...*Journey) context.Context {
	kept := make([]*Journey, 0, len(journeys))
	for _, j := range journeys {
		if j != nil {
			kept = append(kept, j)
		}
	}
	return context.WithValue(ctx, journeyKey{}, kept)
}

func journeysFrom(ctx context.Context) []*Journey {
	if ctx == nil {
		return nil
	}
	js, _ := ctx.Value(journeyKey{}).([]*Journey)
	return js
}

// JourneyFrom is the journey ctx carries (the first, after Across), or nil.
func JourneyFrom(ctx context.Context) *Journey {
	if js := journeysFrom(ctx); len(js) > 0 {
		return js[0]
	}
	return nil
}
