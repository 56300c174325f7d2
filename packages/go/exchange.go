package jtrace

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// One request and its answer: the body read up to 1 MiB within the request deadline, and the
// verdicts settled by the retry rule of event protocol 8.4.

// exchange sends one batch: status 0 for a network failure, the deadline or shutdown.
func (d *delivery) exchange(batch []*pending) (int, []byte, string) {
	var payload bytes.Buffer
	payload.WriteString(`{"events":[`)
	for i, item := range batch {
		if i > 0 {
			payload.WriteByte(',')
		}
		payload.Write(item.built.json)
	}
	payload.WriteString("]}")
	// The whole exchange has one deadline, also against an answer that trickles in byte by byte.
	ctx, cancel := context.WithTimeout(d.ctx, d.s.requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.s.url, bytes.NewReader(payload.Bytes()))
	if err != nil {
		return 0, nil, "request"
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("authorization", "Bearer "+d.s.apiKey)
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, nil, failureReason(ctx, err)
	}
	// At most 1 MiB is read; closing early drops the connection rather than reading the rest.
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	cancel()
	resp.Body.Close()
	if err != nil {
		return 0, nil, failureReason(ctx, err)
	}
	if len(data) > maxResponseBytes {
		return resp.StatusCode, nil, ""
	}
	return resp.StatusCode, data, ""
}

func failureReason(ctx context.Context, err error) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "timed out"
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return "shutdown"
	}
	return "network error"
}

type batchAnswer struct {
	Data *struct {
		Results []json.RawMessage `json:"results"`
	} `json:"data"`
	Error *struct {
		Code string `json:"code"`
	} `json:"error"`
}

type verdict struct {
	Status string `json:"status"`
	Error  *struct {
		Code       string `json:"code"`
		HTTPStatus int    `json:"httpStatus"`
	} `json:"error"`
}

func (d *delivery) settle(batch []*pending, status int, body []byte, reason string) {
	now := time.Now()
	if status == 0 || status >= 500 {
		d.c.RequestFailures++
		d.breaker.failure(now)
		if status != 0 {
			reason = fmt.Sprintf("HTTP %d", status)
		}
		d.note(Diagnostic{Kind: "transport_error", Message: fmt.Sprintf("Sending %d event(s) failed (%s); they will be resent.", len(batch), reason),
			Detail: map[string]any{"status": status, "events": len(batch)}})
		d.requeueFront(batch)
		return
	}
	d.breaker.success()
	var answer batchAnswer
	parsed := body != nil && json.Unmarshal(body, &answer) == nil
	if status >= 300 {
		// A whole-request refusal (bad key, body refused, 429) or a redirect is never resent (8.4).
		code := ""
		if parsed && answer.Error != nil {
			code = answer.Error.Code
		}
		d.note(Diagnostic{Kind: "transport_error", Message: fmt.Sprintf("The server refused the request (HTTP %d %s); its events are dropped.", status, code),
			Detail: map[string]any{"status": status, "code": code}})
		d.drop(len(batch), "request_refused")
		return
	}
	if !parsed || answer.Data == nil || len(answer.Data.Results) < len(batch) {
		d.c.Sent += int64(len(batch))
		d.c.Unconfirmed += int64(len(batch))
		return
	}
	var retry []*pending
	for i, item := range batch {
		var v verdict
		_ = json.Unmarshal(answer.Data.Results[i], &v)
		if v.Status == "accepted" {
			d.c.Sent++
			continue
		}
		code, httpStatus := "unknown", 0
		if v.Error != nil {
			code, httpStatus = v.Error.Code, v.Error.HTTPStatus
		}
		if httpStatus < 500 {
			d.c.Rejected++
			d.note(Diagnostic{Kind: "event_rejected", Message: fmt.Sprintf("The server refused an event (%s, HTTP %d); it is not resent.", code, httpStatus),
				Detail: map[string]any{"code": code, "httpStatus": httpStatus, "eventId": item.built.id, "name": item.built.name}})
			continue
		}
		if item.firstRefuse.IsZero() {
			item.firstRefuse = now
		}
		if item.sends >= maxSends || now.Sub(item.firstRefuse) >= resendWindow {
			d.drop(1, "retry_exhausted")
			continue
		}
		d.c.Resent++
		item.notBefore = now.Add(d.s.resendDelay * time.Duration(item.sends))
		retry = append(retry, item)
	}
	if len(retry) > 0 {
		d.requeueFront(retry)
	}
}
