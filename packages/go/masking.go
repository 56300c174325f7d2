package jtrace

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Masking of credential-shaped text in error messages (event protocol 5.8), ported step by step
// from the server's mask-error-text.ts around the generated patterns. RE2 has no lookaround: the
// generator hands each top-level alternative with the one-character check before or after it,
// and matchPattern makes those checks the way JavaScript's engine does at each position.

type patternPart struct{ behind, body, ahead string }

type compiledPart struct {
	body          *regexp.Regexp
	behind, ahead *regexp.Regexp
}

type compiledPattern []compiledPart

func compilePattern(parts []patternPart) compiledPattern {
	out := make(compiledPattern, len(parts))
	for i, p := range parts {
		out[i].body = regexp.MustCompile(p.body)
		if p.behind != "" {
			out[i].behind = regexp.MustCompile("^" + p.behind + "$")
		}
		if p.ahead != "" {
			out[i].ahead = regexp.MustCompile("^" + p.ahead + "$")
		}
	}
	return out
}

var (
	privateKeyBlock  = compilePattern(privateKeyBlockPattern)
	jwtRe            = compilePattern(jwtPattern)
	providerKeys     = compilePattern(providerKeysPattern)
	slackWebhook     = compilePattern(slackWebhookPattern)
	discordWebhook   = compilePattern(discordWebhookPattern)
	digestParams     = compilePattern(digestParamsPattern)
	schemeCredential = compilePattern(schemeCredentialPattern)
	lowerWord        = regexp.MustCompile(`^[a-z]+$`)
	wordSplit        = regexp.MustCompile(`[-_.]+`)
)

func charMatches(check *regexp.Regexp, text string, at int, before bool) bool {
	var r rune
	var size int
	if before {
		if at == 0 {
			return false
		}
		r, size = utf8.DecodeLastRuneInString(text[:at])
	} else {
		if at >= len(text) {
			return false
		}
		r, size = utf8.DecodeRuneInString(text[at:])
	}
	_ = size
	return check.MatchString(string(r))
}

// find is the leftmost match at or after from (submatch indices), alternatives in order at a tie.
func (p compiledPattern) find(text string, from int) []int {
	var best []int
	for _, part := range p {
		start := from
		for start <= len(text) {
			loc := part.body.FindStringSubmatchIndex(text[start:])
			if loc == nil {
				break
			}
			for i := range loc {
				if loc[i] >= 0 {
					loc[i] += start
				}
			}
			if (part.behind == nil || !charMatches(part.behind, text, loc[0], true)) &&
				(part.ahead == nil || !charMatches(part.ahead, text, loc[1], false)) {
				if best == nil || loc[0] < best[0] {
					best = loc
				}
				break
			}
			_, size := utf8.DecodeRuneInString(text[loc[0]:])
			if size == 0 {
				size = 1
			}
			start = loc[0] + size
			if best != nil && start > best[0] {
				break
			}
		}
	}
	return best
}

// replaceAll is String.prototype.replace with a global regex and a replacement function.
func (p compiledPattern) replaceAll(text string, replace func(text string, loc []int) string) string {
	var out strings.Builder
	copied, from := 0, 0
	for from <= len(text) {
		loc := p.find(text, from)
		if loc == nil {
			break
		}
		out.WriteString(text[copied:loc[0]])
		out.WriteString(replace(text, loc))
		copied = loc[1]
		from = loc[1]
		if loc[1] == loc[0] {
			if loc[1] < len(text) {
				out.WriteString(text[loc[1] : loc[1]+1])
			}
			from++
			copied = from
		}
	}
	if copied == 0 && out.Len() == 0 {
		return text
	}
	if copied < len(text) {
		out.WriteString(text[copied:])
	}
	return out.String()
}

func group(text string, loc []int, n int) string {
	if 2*n+1 >= len(loc) || loc[2*n] < 0 {
		return ""
	}
	return text[loc[2*n]:loc[2*n+1]]
}

func maskUserinfo(text string) string {
	var out strings.Builder
	copied, startFrom := 0, 0
	for {
		rel := strings.Index(text[startFrom:], "://")
		if rel < 0 {
			break
		}
		sep := startFrom + rel
		start := sep + 3
		end := start
		lastAt := -1
		for end < len(text) && !authorityEnd[text[end:end+1]] {
			if text[end] == '@' {
				lastAt = end
			}
			end++
		}
		if lastAt > start {
			out.WriteString(text[copied:start])
			out.WriteString(redacted)
			copied = lastAt
		}
		if end > start {
			startFrom = end
		} else {
			startFrom = start
		}
	}
	if copied == 0 {
		return text
	}
	out.WriteString(text[copied:])
	return out.String()
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// splitNameWords splits camelCase, PascalCase, acronyms and -_. separators into lower-case words.
func splitNameWords(name string) []string {
	var words []string
	for _, part := range wordSplit.Split(name, -1) {
		var word []byte
		for i := 0; i < len(part); i++ {
			ch := part[i]
			var prev, next byte
			if i > 0 {
				prev = part[i-1]
			}
			if i+1 < len(part) {
				next = part[i+1]
			}
			prevLowerOrDigit := prev != 0 && (isLower(prev) || isDigit(prev))
			acronymEnd := prev != 0 && next != 0 && isUpper(prev) && isLower(next)
			if len(word) > 0 && isUpper(ch) && (prevLowerOrDigit || acronymEnd) {
				words = append(words, strings.ToLower(string(word)))
				word = word[:0]
			}
			word = append(word, ch)
		}
		if len(word) > 0 {
			words = append(words, strings.ToLower(string(word)))
		}
	}
	return words
}

func isSecretLookingName(name, before string) bool {
	folded := foldName(name)
	if foldedBuiltIns[folded] {
		return true
	}
	if folded == "key" && (before == "?" || before == "&") {
		return true
	}
	words := splitNameWords(name)
	last, previous := "", ""
	if len(words) > 0 {
		last = words[len(words)-1]
	}
	if len(words) > 1 {
		previous = words[len(words)-2]
	}
	if secretLastWords[last] {
		return !(last == "token" && publicTokenQualifiers[previous])
	}
	if last == "key" {
		return keyQualifiers[previous]
	}
	return strings.HasSuffix(last, "key") && keyQualifiers[last[:len(last)-3]]
}

func isNameChar(c byte) bool {
	return isUpper(c) || isLower(c) || isDigit(c) || c == '_' || c == '.' || c == '-'
}

// nameBefore reads the name before a separator: (name, quote, start of the name's quote).
func nameBefore(text string, sep, floor int) (string, string, int, bool) {
	end := sep
	for end > floor && (text[end-1] == ' ' || text[end-1] == '\t') {
		end--
	}
	quote := ""
	if end-1 >= 0 && (text[end-1] == '"' || text[end-1] == '\'') {
		if end-2 >= 0 && text[end-2] == '\\' && text[end-1] == '"' {
			quote = "\\\""
		} else {
			quote = text[end-1 : end]
		}
		end -= len(quote)
	}
	start := end
	for start > floor && end-start <= maxNameLength && isNameChar(text[start-1]) {
		start--
	}
	if start == end || end-start > maxNameLength {
		return "", "", 0, false
	}
	if quote != "" {
		from := start - len(quote)
		if from < 0 {
			from = 0
		}
		if text[from:start] != quote {
			return "", "", 0, false
		}
	}
	return text[start:end], quote, start - len(quote), true
}

func readValue(text string, pos int, quote string) (int, int) {
	if quote != "" {
		start := pos + len(quote)
		end := start
		for end < len(text) && text[end] != '\r' && text[end] != '\n' {
			if strings.HasPrefix(text[end:], quote) {
				break
			}
			if quote == "\"" && text[end] == '\\' {
				end += 2
			} else {
				end++
			}
		}
		if end > len(text) {
			end = len(text)
		}
		return start, end
	}
	end := pos
	for end < len(text) && !valueEnd[text[end:end+1]] {
		switch {
		case strings.HasPrefix(text[end:], redacted):
			end += len(redacted)
		case text[end] == '\\' && end+1 < len(text) && text[end+1] == '"':
			return pos, end
		default:
			end++
		}
	}
	return pos, end
}

func maskAssignments(text string) string {
	var out strings.Builder
	copied := 0
	n := len(text)
	for i := 0; i < n; {
		ch := text[i]
		if ch != '=' && ch != ':' {
			i++
			continue
		}
		name, nameQuote, nameStart, ok := nameBefore(text, i, copied)
		before := ""
		if ok && nameStart > 0 {
			r, _ := utf8.DecodeLastRuneInString(text[:nameStart])
			before = string(r)
		}
		if !ok || !isSecretLookingName(name, before) {
			i++
			continue
		}
		pos := i + 1
		for pos < n && (text[pos] == ' ' || text[pos] == '\t') {
			pos++
		}
		quote := ""
		if strings.HasPrefix(text[pos:], "\\\"") {
			quote = "\\\""
		} else if pos < n && (text[pos] == '"' || text[pos] == '\'') {
			quote = text[pos : pos+1]
		}
		if ch == ':' && nameQuote == "" && quote == "" {
			i++
			continue
		}
		start, end := readValue(text, pos, quote)
		content := text[start:end]
		if content != "" && content != redacted {
			out.WriteString(text[copied:start])
			out.WriteString(redacted)
			copied = end
		}
		if end > i+1 {
			i = end
		} else {
			i++
		}
	}
	if copied == 0 {
		return text
	}
	out.WriteString(text[copied:])
	return out.String()
}

// maskCredentialText masks private keys, URL userinfo, webhook secrets, JWTs, provider keys,
// authorization schemes and secret-looking assignments.
func maskCredentialText(text string) string {
	whole := func(string, []int) string { return redacted }
	keepFirst := func(t string, loc []int) string { return group(t, loc, 1) + redacted }
	out := privateKeyBlock.replaceAll(text, whole)
	out = maskUserinfo(out)
	out = slackWebhook.replaceAll(out, keepFirst)
	out = discordWebhook.replaceAll(out, keepFirst)
	out = jwtRe.replaceAll(out, whole)
	out = providerKeys.replaceAll(out, whole)
	out = digestParams.replaceAll(out, keepFirst)
	out = schemeCredential.replaceAll(out, func(t string, loc []int) string {
		credential := group(t, loc, 2)
		if len(credential) < minSchemeCredential || lowerWord.MatchString(credential) {
			return t[loc[0]:loc[1]]
		}
		return group(t, loc, 1) + redacted
	})
	return maskAssignments(out)
}
