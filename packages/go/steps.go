package jtrace

import (
	"context"
	"fmt"
	"time"
)

// StepOption adjusts one step.
type StepOption func(*stepConfig)

type stepConfig struct {
	attempt                  int
	metadata                 map[string]any
	messageID, correlationID string
	captureInput             func(any) any
	captureOutput            func(any) any
	isFailure                func(any) (bool, string)
}

// Attempt: an attempt above 1 records `retried`, with the attempt in metadata.
func Attempt(n int) StepOption { return func(c *stepConfig) { c.attempt = n } }

// Metadata sent with the step.
func Metadata(m map[string]any) StepOption { return func(c *stepConfig) { c.metadata = m } }

// MessageID and CorrelationID link the step to a message.
func MessageID(id string) StepOption     { return func(c *stepConfig) { c.messageID = id } }
func CorrelationID(id string) StepOption { return func(c *stepConfig) { c.correlationID = id } }

// CaptureInput and CaptureOutput replace what is captured, never what the host gets.
func CaptureInput(f func(any) any) StepOption  { return func(c *stepConfig) { c.captureInput = f } }
func CaptureOutput(f func(any) any) StepOption { return func(c *stepConfig) { c.captureOutput = f } }

// IsFailure marks a returned value as failing (the event gets an error ResultFailure).
func IsFailure(f func(output any) (bool, string)) StepOption {
	return func(c *stepConfig) { c.isFailure = f }
}

func stepOptions(opts []StepOption) *stepConfig {
	c := &stepConfig{}
	for _, opt := range opts {
		if opt != nil {
			opt(c)
		}
	}
	return c
}

func (c *stepConfig) fields() Fields {
	f := Fields{MessageID: c.messageID, CorrelationID: c.correlationID}
	if c.metadata != nil || c.attempt != 0 {
		m := Object{}
		keys := sortedKeys(c.metadata)
		for _, k := range keys {
			if k != "attempt" || c.attempt == 0 {
				m = append(m, Field{k, c.metadata[k]})
			}
		}
		if c.attempt != 0 {
			m = append(m, Field{"attempt", c.attempt})
		}
		f.Metadata = m
	}
	return f
}

type resultFailure struct{ reason string }

func (e resultFailure) Error() string     { return e.reason }
func (e resultFailure) ErrorName() string { return "ResultFailure" }

// PanicError describes a panic that went through a step; the panic itself goes on unchanged.
type PanicError struct{ Value any }

func (e PanicError) Error() string     { return fmt.Sprint(e.Value) }
func (e PanicError) ErrorName() string { return "panic" }

func projected(project func(any) any, value any) (out any) {
	if project == nil {
		return value
	}
	defer func() {
		if recover() != nil {
			out = markerUncapturable
		}
	}()
	return project(value)
}

// step runs fn and records it on the journey ctx carries. fn's value and error are returned as
// they are; a panic is recorded and goes on.
func step[I, O any](ctx context.Context, op Operation, name string, input I, fn func(context.Context, I) (O, error), opts []StepOption) (output O, err error) {
	journeys := journeysFrom(ctx)
	if len(journeys) == 0 || journeys[0] == nil {
		return fn(ctx, input)
	}
	started := time.Now()
	finished := false
	defer func() {
		if finished {
			return
		}
		if value := recover(); value != nil {
			for _, j := range journeys {
				recordStep(j, op, name, input, nil, PanicError{value}, started, opts, false)
			}
			panic(value)
		}
	}()
	output, err = fn(ctx, input)
	finished = true
	for _, j := range journeys {
		recordStep(j, op, name, input, output, err, started, opts, true)
	}
	return output, err
}

// recordStep stamps the step with its start: a step that calls another service ends after the
// steps it caused, and the journey's timeline (and so its status) follows the order things began.
func recordStep(j *Journey, op Operation, name string, input, output any, err error, started time.Time, opts []StepOption, returned bool) {
	defer func() { _ = recover() }()
	took := time.Since(started)
	c := stepOptions(opts)
	f := c.fields()
	f.Timestamp = started
	f.Input = projected(c.captureInput, input)
	f.Duration = &took
	if err != nil {
		f.Error = err
	} else if returned {
		f.Output = projected(c.captureOutput, output)
		if c.isFailure != nil {
			if failing, reason := c.isFailure(output); failing {
				if reason == "" {
					reason = "failed"
				}
				f.Error = resultFailure{reason}
			}
		}
	}
	if c.attempt > 1 {
		op = Retried
	}
	j.Record(op, name, f)
}

// Receive records a `received` step around fn.
func Receive[I, O any](ctx context.Context, name string, input I, fn func(context.Context, I) (O, error), opts ...StepOption) (O, error) {
	return step(ctx, Received, name, input, fn, opts)
}

// Transform records a `transformed` step around fn.
func Transform[I, O any](ctx context.Context, name string, input I, fn func(context.Context, I) (O, error), opts ...StepOption) (O, error) {
	return step(ctx, Transformed, name, input, fn, opts)
}

// Validate records a `validated` step around fn.
func Validate[I, O any](ctx context.Context, name string, input I, fn func(context.Context, I) (O, error), opts ...StepOption) (O, error) {
	return step(ctx, Validated, name, input, fn, opts)
}

// Persist records a `persisted` step around fn.
func Persist[I, O any](ctx context.Context, name string, input I, fn func(context.Context, I) (O, error), opts ...StepOption) (O, error) {
	return step(ctx, Persisted, name, input, fn, opts)
}

// Publish records a `published` step around fn.
func Publish[I, O any](ctx context.Context, name string, input I, fn func(context.Context, I) (O, error), opts ...StepOption) (O, error) {
	return step(ctx, Published, name, input, fn, opts)
}

// Consume records a `consumed` step around fn.
func Consume[I, O any](ctx context.Context, name string, input I, fn func(context.Context, I) (O, error), opts ...StepOption) (O, error) {
	return step(ctx, Consumed, name, input, fn, opts)
}

// Deliver records a `delivered` step around fn (`retried` with Attempt above 1).
func Deliver[I, O any](ctx context.Context, name string, input I, fn func(context.Context, I) (O, error), opts ...StepOption) (O, error) {
	return step(ctx, Delivered, name, input, fn, opts)
}

// Retry calls fn up to attempts times until it returns no error, recording each try as a
// `delivered` step (attempt 1) or `retried` (attempt 2 and on); it returns the last try's value
// and error unchanged. wait, when not nil, runs between tries (a backoff); ctx ending stops it.
func Retry[I, O any](ctx context.Context, name string, input I, attempts int, wait func(attempt int) time.Duration, fn func(context.Context, I) (O, error), opts ...StepOption) (output O, err error) {
	if attempts < 1 {
		attempts = 1
	}
	for attempt := 1; attempt <= attempts; attempt++ {
		output, err = step(ctx, Delivered, name, input, fn, append(append([]StepOption(nil), opts...), Attempt(attempt)))
		if err == nil || attempt == attempts {
			return output, err
		}
		if wait != nil {
			select {
			case <-time.After(wait(attempt)):
			case <-ctx.Done():
				return output, err
			}
		}
	}
	return output, err
}
