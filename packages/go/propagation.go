package jtrace

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Carrying a journey from one service to the next: HTTP headers, queue message attributes, or an
// envelope inside a JSON message. Only the journey id, the entity and the sending event travel.
// The peer protocol's carriers (docs/sdk.md, "Mixed fleets") are read too, and written on request.

const (
	JourneyHeader = "x-jtrace-journey-id"
	EntityHeader  = "x-jtrace-entity"
	ParentHeader  = "x-jtrace-parent-event-id"
	EnvelopeKey   = "jtrace"
)

var peerValue = regexp.MustCompile(peerValuePattern)

// JourneyContext is what travels: the journey id, the entity (nil when a peer carried none) and
// the event that sent it.
type JourneyContext struct {
	JourneyID     string
	Entity        *Entity
	ParentEventID string
}

// encodeURIComponent's set, so the Node and Python SDKs read what this writes and the other way round.
func quote(text string) string {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		if isUpper(c) || isLower(c) || isDigit(c) || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			b.WriteByte('%')
			b.WriteByte("0123456789ABCDEF"[c>>4])
			b.WriteByte("0123456789ABCDEF"[c&15])
		}
	}
	return b.String()
}

// unquote follows decodeURIComponent: a stray '%' or bytes that are not UTF-8 make it unusable.
func unquote(text string) (string, bool) {
	value, err := url.PathUnescape(text)
	if err != nil || !utf8.ValidString(value) {
		return "", false
	}
	return value, true
}

func fits(text string, maximum int, nulAllowed bool) bool {
	return text != "" && runeLen(text) <= maximum && utf8.ValidString(text) && (nulAllowed || strings.IndexByte(text, 0) < 0)
}

func peerOK(value string, journey bool) bool {
	return peerValue.MatchString(value) && (!journey || strings.HasPrefix(value, peerJourneyPrefix))
}

func contextFields(c JourneyContext, peer bool, peerNames map[string]string) [][2]string {
	fields := [][2]string{{JourneyHeader, quote(c.JourneyID)}}
	if c.Entity != nil {
		fields = append(fields, [2]string{EntityHeader, quote(c.Entity.Type) + ";" + quote(c.Entity.ID)})
	}
	if c.ParentEventID != "" {
		fields = append(fields, [2]string{ParentHeader, quote(c.ParentEventID)})
	}
	if peer && peerOK(c.JourneyID, true) {
		// Only what the peer would read goes; anything else is left out, never altered.
		fields = append(fields, [2]string{peerNames["journeyId"], c.JourneyID})
		if c.Entity != nil && peerOK(c.Entity.Type, false) && peerOK(c.Entity.ID, false) {
			fields = append(fields, [2]string{peerNames["entityType"], c.Entity.Type}, [2]string{peerNames["entityId"], c.Entity.ID})
		}
	}
	return fields
}

func (j *Journey) wantsPeer(peer bool) bool {
	return peer || (j != nil && j.rec != nil && j.rec.peer)
}

// InjectHTTPHeaders adds the journey's headers (and the peer's with peer, or with the recorder's
// PeerPropagation).
func InjectHTTPHeaders(h http.Header, j *Journey, peer bool) {
	if j == nil || h == nil {
		return
	}
	for _, f := range contextFields(j.Context(), j.wantsPeer(peer), peerHeaders) {
		h.Set(f[0], f[1])
	}
}

// headerValue: the first of repeated headers, the part before a comma a proxy joined, without
// the spaces and tabs HTTP allows around it.
func headerValue(h http.Header, name string) (string, bool) {
	values := h.Values(name)
	if len(values) == 0 {
		return "", false
	}
	v := values[0]
	if i := strings.IndexByte(v, ','); i >= 0 {
		v = v[:i]
	}
	return strings.Trim(v, " \t"), true
}

func ownContext(get func(string) (string, bool)) (JourneyContext, bool) {
	journeyText, ok1 := get(JourneyHeader)
	entityText, ok2 := get(EntityHeader)
	if !ok1 || !ok2 {
		return JourneyContext{}, false
	}
	journeyID, ok := unquote(strings.TrimSpace(journeyText))
	if !ok || !fits(journeyID, eventFieldMax["journeyId"], false) {
		return JourneyContext{}, false
	}
	parts := strings.Split(strings.TrimSpace(entityText), ";")
	if len(parts) != 2 {
		return JourneyContext{}, false
	}
	kind, okKind := unquote(parts[0])
	id, okID := unquote(parts[1])
	if !okKind || !okID || !fits(kind, entityFieldMax["type"], false) || !fits(id, entityFieldMax["id"], true) {
		return JourneyContext{}, false
	}
	c := JourneyContext{JourneyID: journeyID, Entity: &Entity{Type: kind, ID: id}}
	if parentText, ok := get(ParentHeader); ok {
		if parent, ok := unquote(strings.TrimSpace(parentText)); ok && fits(parent, eventFieldMax["parentEventId"], false) {
			c.ParentEventID = parent
		}
	}
	return c, true
}

func peerContext(journeyID, kind, id string) (JourneyContext, bool) {
	if !peerOK(journeyID, true) || len(journeyID) > eventFieldMax["journeyId"] {
		return JourneyContext{}, false
	}
	c := JourneyContext{JourneyID: journeyID}
	if peerOK(kind, false) && peerOK(id, false) && len(kind) <= entityFieldMax["type"] && len(id) <= entityFieldMax["id"] {
		c.Entity = &Entity{Type: kind, ID: id}
	}
	return c, true
}

// ExtractHTTPContext reads the journey incoming headers carry: jtrace's own first, then the peer's.
func ExtractHTTPContext(h http.Header) (JourneyContext, bool) {
	get := func(name string) (string, bool) { return headerValue(h, name) }
	if c, ok := ownContext(get); ok {
		return c, true
	}
	journeyID, _ := get(peerHeaders["journeyId"])
	kind, _ := get(peerHeaders["entityType"])
	id, _ := get(peerHeaders["entityId"])
	return peerContext(journeyID, kind, id)
}

// InjectMessageAttributes writes the header names as string attributes (the peer's attribute
// names too with peer).
func InjectMessageAttributes(attributes map[string]string, j *Journey, peer bool) {
	if j == nil || attributes == nil {
		return
	}
	for _, f := range contextFields(j.Context(), j.wantsPeer(peer), peerAttributes) {
		attributes[f[0]] = f[1]
	}
}

// attributeText reads a string, []byte, or an SQS/SNS {DataType, StringValue} or Lambda
// {stringValue} attribute.
func attributeText(value any) (string, bool) {
	switch v := value.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	case map[string]any:
		for _, key := range []string{"StringValue", "stringValue"} {
			if s, ok := v[key].(string); ok {
				return s, true
			}
		}
	case map[string]string:
		for _, key := range []string{"StringValue", "stringValue"} {
			if s, ok := v[key]; ok {
				return s, true
			}
		}
	}
	return "", false
}

// ExtractMessageContext reads queue message attributes: jtrace's names (as headers, without
// case), then the peer's attribute names (with case), then the peer's header names.
func ExtractMessageContext(attributes map[string]any) (JourneyContext, bool) {
	header := http.Header{}
	for name, value := range attributes {
		if text, ok := attributeText(value); ok {
			header.Add(name, text)
		}
	}
	get := func(name string) (string, bool) { return headerValue(header, name) }
	if c, ok := ownContext(get); ok {
		return c, true
	}
	exact := func(field string) string {
		text, _ := attributeText(attributes[peerAttributes[field]])
		return text
	}
	if c, ok := peerContext(exact("journeyId"), exact("entityType"), exact("entityId")); ok {
		return c, true
	}
	journeyID, _ := get(peerHeaders["journeyId"])
	kind, _ := get(peerHeaders["entityType"])
	id, _ := get(peerHeaders["entityId"])
	return peerContext(journeyID, kind, id)
}

// WrapMessage is {"jtrace": {...}, "payload": payload}: a JSON message carrying the journey.
func WrapMessage(payload any, j *Journey) map[string]any {
	fields := map[string]any{}
	if j != nil {
		for _, f := range contextFields(j.Context(), false, nil) {
			fields[f[0]] = f[1]
		}
	}
	return map[string]any{EnvelopeKey: fields, "payload": payload}
}

// UnwrapMessage opens a WrapMessage message (decoded from JSON) or the peer's
// {"_wayscribe": {...}, "data": ...}; anything else is its own payload.
func UnwrapMessage(message any) (JourneyContext, bool, any) {
	m, ok := asMap(message)
	if !ok {
		return JourneyContext{}, false, message
	}
	if carried, has := m[EnvelopeKey]; has {
		if payload, hasPayload := m["payload"]; hasPayload {
			if fields, ok := asMap(carried); ok {
				c, found := ExtractMessageContext(fields)
				return c, found, payload
			}
			return JourneyContext{}, false, payload
		}
	}
	if carried, ok := asMap(m[peerEnvelopeKey]); ok {
		text := func(field string) string { s, _ := carried[peerEnvelopeFields[field]].(string); return s }
		c, found := peerContext(text("journeyId"), text("entityType"), text("entityId"))
		return c, found, m[peerEnvelopeDataKey]
	}
	return JourneyContext{}, false, message
}

func asMap(value any) (map[string]any, bool) {
	switch v := value.(type) {
	case map[string]any:
		return v, true
	case Object:
		out := make(map[string]any, len(v))
		for _, f := range v {
			if _, seen := out[f.Key]; !seen {
				out[f.Key] = f.Value
			}
		}
		return out, true
	}
	return nil, false
}
