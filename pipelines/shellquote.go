package pipelines

import (
	"strings"
	"unicode/utf8"
)

// shellQuote returns s as one bash word, on one line whatever s holds:
//
//   - as it is when made only of characters no shell treats specially
//     (letters, digits and _-+=:,./@%);
//   - else in single quotes, a quote inside written as close-quote,
//     backslash-quote, open-quote;
//   - else, when s holds a control character (newline, carriage return,
//     tab, ...), DEL or a byte that is not UTF-8, ANSI-C quoted, $'…',
//     with those bytes written \xHH and \ and ' escaped, so that no raw
//     newline or carriage return ever reaches a script, comments
//     included.
//
// For example (the second: a, newline, b):
//
//	it's  →  'it'\''s
//	a␤b   →  $'a\x0ab'
//
// A NUL cannot be in a word (bash ends the string there): jobScript.render
// refuses it before quoting.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, unsafeRune) {
		return s
	}
	return quoteWord(s)
}

// shellCommandQuote is shellQuote for a command's name: always quoted, so
// that it is never read as a reserved word (if, time, {) or an assignment
// (A=B).
func shellCommandQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, unsafeRune) {
		return "'" + s + "'"
	}
	return quoteWord(s)
}

// quoteWord single-quotes s, or ANSI-C quotes it when it holds a byte
// that single quotes would pass through raw.
func quoteWord(s string) string {
	if !needsANSIC(s) {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	const hex = "0123456789abcdef"
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1, r < 0x20, r == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteByte(s[i])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// needsANSIC says whether s holds a control character, DEL or a byte
// that is not UTF-8.
func needsANSIC(s string) bool {
	if !utf8.ValidString(s) {
		return true
	}
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

// unsafeRune says whether r is one a shell might treat specially (any
// but letters, digits and _-+=:,./@%).
func unsafeRune(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-+=:,./@%", r))
}
