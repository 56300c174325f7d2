package jtrace

import "time"

// breaker opens after threshold failed requests in a row for cooldown, then lets one trial
// request through; a success closes it. Between failures while closed, sends back off from
// 250 ms doubling to 30 s, so an outage costs few requests. Guarded by the delivery's lock.
type breaker struct {
	threshold   int
	cooldown    time.Duration
	failures    int
	openUntil   time.Time
	nextAttempt time.Time
	state       string
	onOpen      func(failures int)
}

const maxBackoff = 30 * time.Second

func (b *breaker) wait(now time.Time) time.Duration {
	until := b.nextAttempt
	if b.state == "open" {
		until = b.openUntil
	}
	if d := until.Sub(now); d > 0 {
		return d
	}
	return 0
}

func (b *breaker) canSend(now time.Time) bool {
	if b.state == "open" {
		if now.Before(b.openUntil) {
			return false
		}
		b.state = "half-open"
		return true
	}
	return !now.Before(b.nextAttempt)
}

func (b *breaker) success() {
	b.failures, b.nextAttempt, b.state = 0, time.Time{}, "closed"
}

func (b *breaker) failure(now time.Time) {
	b.failures++
	if b.state == "half-open" || b.failures >= b.threshold {
		b.state = "open"
		b.openUntil = now.Add(b.cooldown)
		b.onOpen(b.failures)
		return
	}
	backoff := 250 * time.Millisecond << (b.failures - 1)
	if backoff > maxBackoff || backoff <= 0 {
		backoff = maxBackoff
	}
	b.nextAttempt = now.Add(backoff)
}
