package jtrace

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Strings are measured as the server measures them: UTF-16 units for payload strings (protocol
// 9.1), code points for fields (2.2). Go strings are UTF-8; bytes that are not UTF-8 (the only way
// a Go string can hold what JavaScript calls an unpaired surrogate) become U+FFFD.

const (
	markerCircular     = "[CIRCULAR]"
	markerUncapturable = "[UNCAPTURABLE]"
	markerTooLarge     = "[PAYLOAD_TOO_LARGE]"
	markerKeyTooLong   = "[KEY_TOO_LONG]"
	markerTruncated    = "[TRUNCATED]"
	ellipsis           = "\u2026"
	truncatedHead      = "[TRUNCATED: "
	truncatedTail      = " characters removed]"
	replacementRune    = "\uFFFD"
	maxSafeInteger     = 1<<53 - 1
	minSafeInteger     = -(1<<53 - 1)
)

// storable removes U+0000 (unless nulAllowed) and makes text that is not UTF-8 valid, which the
// server refuses in text it stores in the clear (protocol 2.7 step 6; cases sdk/nul-byte and
// sdk/lone-surrogate). A surrogate written as its three bytes (ED A0..BF xx, what a Go string
// converted from UTF-16 without checking holds) becomes one U+FFFD, as JavaScript's
// toWellFormed makes it; any other run of bytes that is not UTF-8 becomes one U+FFFD.
func storable(text string, nulAllowed bool) string {
	clean := true
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c >= utf8.RuneSelf || (c == 0 && !nulAllowed) {
			clean = false
			break
		}
	}
	if clean {
		return text
	}
	if !utf8.ValidString(text) {
		text = wellFormed(text)
	}
	if !nulAllowed && strings.IndexByte(text, 0) >= 0 {
		text = strings.ReplaceAll(text, "\x00", "")
	}
	return text
}

func wellFormed(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	inRun := false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if r != utf8.RuneError || size != 1 {
			b.WriteString(text[i : i+size])
			i += size
			inRun = false
			continue
		}
		if i+2 < len(text) && text[i] == 0xed && text[i+1] >= 0xa0 && text[i+1] <= 0xbf && text[i+2] >= 0x80 && text[i+2] <= 0xbf {
			b.WriteString(replacementRune)
			i += 3
			inRun = false
			continue
		}
		if !inRun {
			b.WriteString(replacementRune)
		}
		inRun = true
		i++
	}
	return b.String()
}

// utf16Units is the length JavaScript gives a string.
func utf16Units(text string) int {
	units := 0
	for _, r := range text {
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
	}
	return units
}

func truncationMarker(removed int) string {
	return truncatedHead + strconv.Itoa(removed) + truncatedTail
}

// truncateString keeps at most maximum UTF-16 units, marker included, never splitting a
// character; a CRLF goes before the marker when the text has CRLF (a header block stays one).
func truncateString(text string, maximum int) string {
	if len(text) <= maximum/2 {
		return text
	}
	units := utf16Units(text)
	if units <= maximum {
		return text
	}
	separator := ""
	if strings.Contains(text, "\r\n") {
		separator = "\r\n"
	}
	keep := maximum - len(separator) - len(truncationMarker(units))
	keep = maximum - len(separator) - len(truncationMarker(units-keep))
	count := 0
	end := 0
	for i, r := range text {
		width := 1
		if r >= 0x10000 {
			width = 2
		}
		if count+width > keep {
			end = i
			break
		}
		count += width
		end = i + utf8.RuneLen(r)
	}
	return text[:end] + separator + truncationMarker(units-count)
}

// cutWithMarker keeps at most maximum code points, the marker included.
func cutWithMarker(text string, maximum int, marker string) string {
	text = storable(text, false)
	if len(text) <= maximum || utf8.RuneCountInString(text) <= maximum {
		return text
	}
	keep := maximum - utf8.RuneCountInString(marker)
	n := 0
	for i := range text {
		if n == keep {
			return text[:i] + marker
		}
		n++
	}
	return text + marker
}

func fitField(text string, maximum int) string { return cutWithMarker(text, maximum, ellipsis) }

func fitErrorMessage(message string) string {
	// Judged once storable: a message of only U+0000 is empty then.
	message = storable(message, false)
	if message == "" {
		message = "Error"
	}
	return cutWithMarker(message, errorFieldMax["message"], markerTruncated)
}

func fitLabel(label string) (string, bool) {
	// Judged once storable: a label of U+0000 and spaces is blank then.
	label = storable(label, false)
	if strings.TrimSpace(label) == "" {
		return "", false
	}
	return cutWithMarker(label, eventFieldMax["journeyLabel"], ellipsis), true
}

func runeLen(text string) int { return utf8.RuneCountInString(text) }

func endsWithTruncationMarker(text string) bool {
	if !strings.HasSuffix(text, truncatedTail) {
		return false
	}
	start := strings.LastIndex(text, truncatedHead)
	if start < 0 {
		return false
	}
	digits := text[start+len(truncatedHead) : len(text)-len(truncatedTail)]
	if digits == "" {
		return false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return false
		}
	}
	return true
}

func setOf(items ...string) map[string]bool {
	out := make(map[string]bool, len(items))
	for _, item := range items {
		out[item] = true
	}
	return out
}
