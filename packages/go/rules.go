package jtrace

import (
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
)

// The server's redaction (event protocol 5.3-5.7), ported step by step from redact.ts,
// operator-rules.ts and secret-names.ts around the data generated into protocol_gen.go.

var (
	foldedBuiltIns = foldAll(builtInSecretNames)
	knownHeaders   = setOf(knownHeaderNames...)
	headerToken    = regexp.MustCompile(headerTokenPattern)
	rawHeaderName  = regexp.MustCompile(rawHeaderNamePattern)
	ruleGrammar    = regexp.MustCompile("[*\\[\\]\x00-\x1f\x7f]")
)

func foldAll(names []string) map[string]bool {
	out := make(map[string]bool, len(names))
	for _, name := range names {
		out[foldName(name)] = true
	}
	return out
}

// foldName lower-cases ASCII letters (locale-free) and removes every '-' and '_' (5.4).
func foldName(name string) string {
	simple := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if (c >= 'A' && c <= 'Z') || c == '-' || c == '_' || c >= 0x80 {
			simple = false
			break
		}
	}
	if simple {
		return name
	}
	lower := strings.ToLower(name)
	if strings.ContainsAny(lower, "-_") {
		lower = strings.NewReplacer("-", "", "_", "").Replace(lower)
	}
	return lower
}

func isKnownHeaderName(name string) bool { return knownHeaders[strings.ToLower(name)] }

type stepKind int

const (
	stepKey stepKind = iota
	stepAnyKey
	stepElements
)

type ruleStep struct {
	kind stepKind
	name string
}

type cursor struct {
	steps []ruleStep
	index int
}

func validRuleName(name string) bool {
	return name != "" && !ruleGrammar.MatchString(name) && strings.TrimSpace(name) == name
}

func parseSegment(segment string, first bool) ([]ruleStep, bool) {
	if segment == "[*]" {
		if first {
			return []ruleStep{{kind: stepElements}}, true
		}
		return nil, false
	}
	hasElements := strings.HasSuffix(segment, "[*]")
	head := segment
	if hasElements {
		head = segment[:len(segment)-3]
	}
	var step ruleStep
	switch {
	case head == "*":
		step = ruleStep{kind: stepAnyKey}
	case validRuleName(head):
		step = ruleStep{kind: stepKey, name: foldName(head)}
	default:
		return nil, false
	}
	if hasElements {
		return []ruleStep{step, {kind: stepElements}}, true
	}
	return []ruleStep{step}, true
}

// parseRule reads an operator rule (5.5): anyDepth is the folded name of a `**.name` rule.
func parseRule(rule string) (steps []ruleStep, anyDepth string, ok bool) {
	if rule == "" {
		return nil, "", false
	}
	if strings.HasPrefix(rule, "**.") {
		name := rule[3:]
		if strings.Contains(name, ".") || !validRuleName(name) {
			return nil, "", false
		}
		return nil, foldName(name), true
	}
	for i, segment := range strings.Split(rule, ".") {
		parsed, good := parseSegment(segment, i == 0)
		if !good {
			return nil, "", false
		}
		steps = append(steps, parsed...)
	}
	return steps, "", true
}

type keyVerdict struct {
	folded string
	secret bool
}

// redactor is one compiled rule set, shared by every goroutine that records: its verdict cache
// is a sync.Map (a plain map written from two recording goroutines is a fatal error in Go).
type redactor struct {
	anyDepth     map[string]bool
	root         []cursor
	malformed    []string
	verdicts     sync.Map
	verdictCount atomic.Int64
}

func newRedactor(rules []string) *redactor {
	r := &redactor{anyDepth: map[string]bool{}}
	for _, rule := range rules {
		steps, any, ok := parseRule(rule)
		switch {
		case !ok:
			r.malformed = append(r.malformed, rule)
		case any != "":
			r.anyDepth[any] = true
		case len(steps) > 0:
			r.root = append(r.root, cursor{steps: steps})
		}
	}
	return r
}

func (r *redactor) isSecretName(name string) bool {
	folded := foldName(name)
	return foldedBuiltIns[folded] || r.anyDepth[folded]
}

func (r *redactor) verdict(key string) keyVerdict {
	if v, ok := r.verdicts.Load(key); ok {
		return v.(keyVerdict)
	}
	folded := foldName(key)
	v := keyVerdict{folded: folded, secret: foldedBuiltIns[folded] || r.anyDepth[folded]}
	// Payloads repeat the same keys call after call; a stream of distinct keys stops being cached.
	if r.verdictCount.Load() < 10000 {
		r.verdictCount.Add(1)
		r.verdicts.Store(key, v)
	}
	return v
}

func stepKeyCursors(cursors []cursor, folded string) (bool, []cursor) {
	if len(cursors) == 0 {
		return false, nil
	}
	matched := false
	var following []cursor
	for _, c := range cursors {
		s := c.steps[c.index]
		if s.kind == stepElements || (s.kind == stepKey && s.name != folded) {
			continue
		}
		if c.index+1 == len(c.steps) {
			matched = true
		} else {
			following = append(following, cursor{c.steps, c.index + 1})
		}
	}
	return matched, following
}

func stepElementCursors(cursors []cursor) (bool, []cursor) {
	if len(cursors) == 0 {
		return false, nil
	}
	matched := false
	var following []cursor
	for _, c := range cursors {
		if c.steps[c.index].kind != stepElements {
			continue
		}
		if c.index+1 == len(c.steps) {
			matched = true
		} else {
			following = append(following, cursor{c.steps, c.index + 1})
		}
	}
	return matched, following
}

// redact writes the redaction into value, a captured tree the caller owns alone, and returns it.
func (r *redactor) redact(value any) any { return r.walk(value, r.root) }

func needsHeaderCheck(s string) bool {
	return strings.Contains(s, "\r\n") || strings.HasSuffix(s, truncatedTail)
}

func (r *redactor) walk(value any, cursors []cursor) any {
	switch v := value.(type) {
	case string:
		if needsHeaderCheck(v) {
			return r.headerBlock(v)
		}
		return v
	case []any:
		shaped := r.shapeIndices(v)
		matched, following := stepElementCursors(cursors)
		for i, item := range v {
			if matched || shaped[i] {
				v[i] = redacted
			} else {
				v[i] = r.walk(item, following)
			}
		}
		return v
	case *object:
		valueKey := r.nameValueObject(v)
		for i, key := range v.keys {
			verdict := r.verdict(key)
			matched, following := stepKeyCursors(cursors, verdict.folded)
			if matched || verdict.secret || (valueKey && key == "value") {
				v.vals[i] = redacted
			} else {
				v.vals[i] = r.walk(v.vals[i], following)
			}
		}
		return v
	}
	return value
}

func replaceable(value any) bool {
	s, ok := value.(string)
	return !(ok && isKnownHeaderName(s))
}

func (r *redactor) shapeIndices(items []any) map[int]bool {
	if len(items) == 2 {
		if name, ok := items[0].(string); ok {
			if r.isSecretName(name) && replaceable(items[1]) {
				return map[int]bool{1: true}
			}
			return nil
		}
	}
	if len(items) == 0 || len(items)%2 != 0 {
		return nil
	}
	known := false
	for i := 0; i < len(items); i += 2 {
		name, ok := items[i].(string)
		if !ok || !rawHeaderName.MatchString(name) {
			return nil
		}
		if _, ok := items[i+1].(string); !ok {
			return nil
		}
		known = known || isKnownHeaderName(name)
	}
	if !known {
		return nil
	}
	out := map[int]bool{}
	for i := 0; i < len(items); i += 2 {
		if r.isSecretName(items[i].(string)) && replaceable(items[i+1]) {
			out[i+1] = true
		}
	}
	return out
}

func (r *redactor) nameValueObject(source *object) bool {
	value, ok := source.get("value")
	if !ok {
		return false
	}
	label := ""
	if name, ok := source.get("name"); ok {
		if s, isString := name.(string); isString {
			label = s
			return r.isSecretName(label) && replaceable(value)
		}
	}
	if key, ok := source.get("key"); ok {
		if s, isString := key.(string); isString {
			return r.isSecretName(s) && replaceable(value)
		}
	}
	return false
}

func (r *redactor) headerLine(line string) string {
	colon := strings.IndexByte(line, ':')
	if colon <= 0 {
		return line
	}
	token := line[:colon]
	if !headerToken.MatchString(token) || !r.isSecretName(token) {
		return line
	}
	start := colon + 1
	for start < len(line) && (line[start] == ' ' || line[start] == '\t') {
		start++
	}
	if start >= len(line) {
		return line
	}
	return line[:start] + redacted
}

// headerBlock masks the values of secret header lines in text shaped like an HTTP header block.
func (r *redactor) headerBlock(text string) string {
	if !strings.Contains(text, "\r\n") && !endsWithTruncationMarker(text) {
		return text
	}
	lines := strings.Split(text, "\r\n")
	changed := false
	for i, line := range lines {
		if line == "" && i > 0 {
			break
		}
		if masked := r.headerLine(line); masked != line {
			lines[i] = masked
			changed = true
		}
	}
	if !changed {
		return text
	}
	return strings.Join(lines, "\r\n")
}
