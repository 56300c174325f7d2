package jtrace

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// One protocol 0.1 envelope from a recorded step: capture, redaction with the server's rules,
// error masking, then fitting to the limits; serialized once, when the step is recorded.

const (
	minJourneyIDSecretBytes = 32
	derivationLabel         = "journey-id/v1"
)

func uuid4() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on the systems Go supports; a time-based fallback keeps ids unique enough.
		binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixNano()))
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func randomJourneyID() string { return "jrn_" + uuid4() }
func newEventID() string      { return "evt_" + uuid4() }

// DeriveJourneyID is event protocol 4.6: "jrn_" and 32 hex of HMAC-SHA256 over the length-prefixed
// UTF-8 fields; the same ids the Node and Python SDKs derive. ok is false for text that is not UTF-8.
func DeriveJourneyID(secret, environment, entityType, entityID string) (id string, ok bool) {
	for _, part := range []string{environment, entityType, entityID} {
		if !utf8.ValidString(part) {
			return "", false
		}
	}
	mac := hmac.New(sha256.New, []byte(secret))
	var size [4]byte
	for _, part := range []string{derivationLabel, environment, entityType, entityID} {
		binary.BigEndian.PutUint32(size[:], uint32(len(part)))
		mac.Write(size[:])
		mac.Write([]byte(part))
	}
	return "jrn_" + hex.EncodeToString(mac.Sum(nil))[:32], true
}

// Diagnostic is what the recorder reports instead of failing the host: a kind, a message, details.
type Diagnostic struct {
	Kind    string
	Message string
	Detail  map[string]any
}

type builder struct {
	service, environment string
	redactor             *redactor
	captureStack         bool
	maxEventBytes        int
	runtime, deployment  *object
	report               func(Diagnostic)

	reportedMu sync.Mutex
	reported   map[string]bool
}

var (
	secretNameCache sync.Map
	secretNameCount atomic.Int64
)

func looksSecret(key string) bool {
	if v, ok := secretNameCache.Load(key); ok {
		return v.(bool)
	}
	verdict := isSecretLookingName(key, "")
	if secretNameCount.Load() < 10000 {
		secretNameCount.Add(1)
		secretNameCache.Store(key, verdict)
	}
	return verdict
}

func (b *builder) visitNames(root string, node any, path []string) {
	if len(path) > 63 {
		return
	}
	switch v := node.(type) {
	case []any:
		path = append(path, "[*]")
		for _, item := range v {
			b.visitNames(root, item, path)
		}
	case *object:
		for i, key := range v.keys {
			item := v.vals[i]
			here := append(path, "."+key)
			if item != redacted && looksSecret(key) {
				where := root + strings.Join(here, "")
				b.reportedMu.Lock()
				fresh := !b.reported[root+" "+where]
				if fresh && len(b.reported) < 10000 {
					b.reported[root+" "+where] = true
				}
				b.reportedMu.Unlock()
				if fresh {
					b.report(Diagnostic{Kind: "unredacted_secret_name",
						Message: "A secret-looking name no rule covers was sent as it is: " + where + ". Add a redaction rule if it holds a secret.",
						Detail:  map[string]any{"field": root, "name": key, "path": where}})
				}
			}
			b.visitNames(root, item, here)
		}
	}
}

func (b *builder) capturedRoot(root string, value any) any {
	captured, flagged := capture(value, (b.maxEventBytes+1)/2, looksSecret)
	if captured == nil || captured == missing {
		return nil
	}
	out := b.redactor.redact(captured)
	if flagged {
		b.visitNames(root, out, nil)
	}
	return out
}

func (b *builder) describeError(err any) *object {
	var kind, message, code, stack string
	hasKind, hasCode := false, false
	switch e := err.(type) {
	case error:
		kind, hasKind = errorName(e), true
		message = safeText(func() string { return e.Error() })
		if coded, ok := e.(interface{ Code() string }); ok {
			code, hasCode = safeText(coded.Code), true
		}
		if b.captureStack {
			if stacked, ok := e.(interface{ StackTrace() string }); ok {
				stack = safeText(stacked.StackTrace)
			}
		}
	case string:
		message = e
	default:
		kind, hasKind = fmt.Sprintf("%T", err), true
		captured, _ := capture(err, defaultMaxEventBytes/2, nil)
		message = jsonText(b.redactor.redact(captured))
	}
	out := newObject(4)
	if hasKind {
		// A type left empty once storable (only U+0000) is one the server refuses.
		kind = fitField(b.redactor.headerBlock(kind), errorFieldMax["type"])
		if kind == "" {
			kind = "Error"
		}
		out.set("type", kind)
	}
	out.set("message", fitErrorMessage(maskCredentialText(b.redactor.headerBlock(message))))
	if hasCode {
		out.set("code", fitField(b.redactor.headerBlock(code), errorFieldMax["code"]))
	}
	if stack != "" {
		out.set("stack", fitField(maskCredentialText(b.redactor.headerBlock(stack)), errorFieldMax["stack"]))
	}
	return out
}

func safeText(f func() string) (text string) {
	defer func() {
		if recover() != nil {
			text = markerUncapturable
		}
	}()
	return f()
}

func isoTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

type built struct {
	id, name string
	json     []byte
}

func fitAliases(aliases map[string]string, displayable []string) (*object, []string) {
	var fitted *object
	if aliases != nil {
		fitted = newObject(len(aliases))
		keys := make([]string, 0, len(aliases))
		for k := range aliases {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, kind := range keys {
			value := aliases[kind]
			if runeLen(kind) > aliasTypeMax || runeLen(value) > aliasValueMax {
				continue
			}
			// A type of only U+0000 is empty once storable, which the server refuses: left off.
			if stored := storable(kind, false); stored != "" {
				fitted.set(stored, storable(value, true))
			}
		}
	}
	var listed []string
	if displayable != nil {
		listed = []string{}
		for _, t := range displayable {
			if stored := storable(t, false); runeLen(t) <= aliasTypeMax && stored != "" {
				listed = append(listed, stored)
			}
		}
		if len(listed) > maxDisplayableAliases {
			listed = listed[:maxDisplayableAliases]
		}
	}
	return fitted, listed
}

func fitMetadata(metadata *object) *object {
	out := newObject(metadata.len())
	dropped := 0
	for i, key := range metadata.keys {
		if runeLen(key) > metadataKeyMax {
			dropped++
		} else {
			out.set(key, metadata.vals[i])
		}
	}
	if dropped > 0 {
		out.set(markerKeyTooLong, int64(dropped))
	}
	return out
}

// fitEnvelope: the larger payload becomes [PAYLOAD_TOO_LARGE], then the other, then metadata goes (9.1).
func fitEnvelope(envelope *object, event *object, maxBytes int) []byte {
	var buf bytes.Buffer
	buf.Grow(4096)
	writeJSON(&buf, envelope)
	if buf.Len() <= maxBytes {
		return buf.Bytes()
	}
	size := buf.Len()
	type part struct {
		key  string
		size int
	}
	var parts []part
	for _, key := range []string{"input", "output"} {
		if v, ok := event.get(key); ok {
			parts = append(parts, part{key, len(jsonText(v))})
		}
	}
	sort.SliceStable(parts, func(a, b int) bool { return parts[a].size > parts[b].size })
	for _, p := range parts {
		event.set(p.key, markerTooLarge)
		size -= p.size - len(markerTooLarge) - 2
		if size <= maxBytes {
			buf.Reset()
			writeJSON(&buf, envelope)
			return buf.Bytes()
		}
	}
	event.remove("metadata")
	buf.Reset()
	writeJSON(&buf, envelope)
	return buf.Bytes()
}

type entityPair struct{ kind, id string }

func (b *builder) build(journeyID string, entity entityPair, label string, hasLabel bool, op Operation, name string, f *Fields) built {
	event := newObject(20)
	id := newEventID()
	event.set("id", id)
	event.set("journeyId", journeyID)
	event.set("environment", b.environment)
	event.set("service", b.service)
	ent := newObject(2)
	// Empty once storable (only U+0000): the server refuses an empty type.
	kind := fitField(entity.kind, entityFieldMax["type"])
	if kind == "" {
		kind = "unknown"
	}
	ent.set("type", kind)
	ent.set("id", storable(entity.id, true))
	event.set("entity", ent)
	event.set("operation", string(op))
	// Checked once storable too: a name of only U+0000 is empty then.
	name = fitField(name, eventFieldMax["name"])
	if name == "" {
		name = string(op)
	}
	event.set("name", name)
	ts := f.Timestamp
	if ts.IsZero() {
		ts = time.Now()
	}
	event.set("timestamp", isoTime(ts))
	if hasLabel {
		if fitted, ok := fitLabel(label); ok {
			event.set("journeyLabel", fitted)
		}
	}
	if f.Aliases != nil || f.DisplayableAliases != nil {
		aliases, displayable := fitAliases(f.Aliases, f.DisplayableAliases)
		if aliases != nil {
			event.set("aliases", aliases)
		}
		if displayable != nil {
			event.set("displayableAliases", displayable)
		}
	}
	if f.Duration != nil {
		ms := math.Round(float64(*f.Duration) / float64(time.Millisecond))
		event.set("durationMs", int64(math.Min(maxDurationMs, math.Max(0, ms))))
	}
	for _, link := range []struct{ wire, value string }{{"parentEventId", f.ParentEventID}, {"messageId", f.MessageID}, {"correlationId", f.CorrelationID}} {
		if link.value != "" {
			event.set(link.wire, fitField(link.value, eventFieldMax[link.wire]))
		}
	}
	if f.Input != nil {
		if captured := b.capturedRoot("input", f.Input); captured != nil {
			event.set("input", captured)
		}
	}
	if f.Output != nil {
		if captured := b.capturedRoot("output", f.Output); captured != nil {
			event.set("output", captured)
		}
	}
	if f.Error != nil {
		event.set("error", b.describeError(f.Error))
	}
	event.set("runtime", b.runtime)
	if b.deployment != nil {
		event.set("deployment", b.deployment)
	}
	if f.Metadata != nil {
		if metadata, ok := b.capturedRoot("metadata", f.Metadata).(*object); ok {
			event.set("metadata", fitMetadata(metadata))
		}
	}
	envelope := newObject(2)
	envelope.set("protocolVersion", protocolVersion)
	envelope.set("event", event)
	return built{id: id, name: name, json: fitEnvelope(envelope, event, b.maxEventBytes)}
}
