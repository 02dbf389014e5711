package sqlstore

import (
	"fmt"
	"strings"
)

// SplitStatements cuts the text of a migration file into statements.
//
// The rule: a statement ends at a semicolon that is outside every quoted or
// commented span; the text after the last semicolon, if not blank, is one more
// statement. The spans that hide a semicolon are
//   - 'string literals' (” is a quote inside), and E'...' strings, where a
//     backslash also escapes the next character (PostgreSQL);
//   - "quoted identifiers" ("" is a quote inside);
//   - $tag$ dollar-quoted bodies $tag$ (PostgreSQL; tag empty or an
//     identifier; $1 is a placeholder, not a quote);
//   - -- line comments and /* block comments */ (nested, as PostgreSQL reads
//     them).
//
// Comments are dropped (a block comment becomes one space, so tokens around it
// stay apart); each statement is trimmed of ASCII white space; statements left empty are dropped.
// An unterminated quote, dollar body or block comment is an error, so a typo
// cannot silently swallow the rest of a file. Not supported: SQLite trigger
// bodies (BEGIN ...; ...; END), MySQL backquotes, [bracketed] identifiers.
func SplitStatements(text string) ([]string, error) {
	var (
		out  []string
		cur  strings.Builder
		line = 1
	)
	emit := func() {
		if s := strings.Trim(cur.String(), asciiSpace); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line++
			cur.WriteByte(c)
			i++
		case c == ';':
			emit()
			i++
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				i = len(text)
			} else {
				i += end // the newline itself is kept
			}
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			n, lines, ok := blockComment(text[i:])
			if !ok {
				return nil, fmt.Errorf("line %d: unterminated /* comment", line)
			}
			line += lines
			cur.WriteByte(' ')
			i += n
		case c == '\'':
			n, ok := quoted(text[i:], '\'', escapesBackslash(text, i))
			if !ok {
				return nil, fmt.Errorf("line %d: unterminated string literal", line)
			}
			line += strings.Count(text[i:i+n], "\n")
			cur.WriteString(text[i : i+n])
			i += n
		case c == '"':
			n, ok := quoted(text[i:], '"', false)
			if !ok {
				return nil, fmt.Errorf("line %d: unterminated quoted identifier", line)
			}
			line += strings.Count(text[i:i+n], "\n")
			cur.WriteString(text[i : i+n])
			i += n
		case c == '$' && !(i > 0 && isIdentByte(text[i-1])):
			tag, ok := dollarTag(text[i:])
			if !ok { // a placeholder ($1) or a lone dollar
				cur.WriteByte(c)
				i++
				continue
			}
			end := strings.Index(text[i+len(tag):], tag)
			if end < 0 {
				return nil, fmt.Errorf("line %d: unterminated %s body", line, tag)
			}
			n := len(tag) + end + len(tag)
			line += strings.Count(text[i:i+n], "\n")
			cur.WriteString(text[i : i+n])
			i += n
		default:
			cur.WriteByte(c)
			i++
		}
	}
	emit()
	return out, nil
}

// asciiSpace is what separates tokens; other Unicode spaces are identifier
// bytes to PostgreSQL, so trimming them could change what a statement means.
const asciiSpace = " \t\n\v\f\r"

// quoted returns the length of the quoted span at the start of s (s[0] is
// q), where a doubled q is a literal q and, if backslash, "\x" is literal x.
func quoted(s string, q byte, backslash bool) (int, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if backslash {
				i++
			}
		case q:
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i + 1, true
		}
	}
	return 0, false
}

// escapesBackslash tells whether the quote at text[i] opens an E'...' string:
// preceded by a lone E or e (not the end of a longer word).
func escapesBackslash(text string, i int) bool {
	if i == 0 || (text[i-1] != 'E' && text[i-1] != 'e') {
		return false
	}
	return i == 1 || !isIdentByte(text[i-2])
}

// blockComment returns the length of the (nested) block comment at the start
// of s and the newlines in it.
func blockComment(s string) (n, lines int, ok bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\n':
			lines++
		case strings.HasPrefix(s[i:], "/*"):
			depth++
			i++
		case strings.HasPrefix(s[i:], "*/"):
			depth--
			i++
			if depth == 0 {
				return i + 1, lines, true
			}
		}
	}
	return 0, 0, false
}

// dollarTag returns the opening "$tag$" at the start of s, if there is one.
func dollarTag(s string) (string, bool) {
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '$':
			return s[:i+1], true
		case c >= '0' && c <= '9':
			if i == 1 {
				return "", false // $1: a placeholder
			}
		case !isIdentByte(c):
			return "", false
		}
	}
	return "", false
}

// isIdentByte reports whether c may appear in an unquoted identifier. Bytes of
// multi-byte UTF-8 letters count as identifier bytes, as PostgreSQL reads them.
func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
