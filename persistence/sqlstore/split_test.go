package sqlstore

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"blank and comments only", "  \n-- nothing here;\n/* nor ; here */\n", nil},
		{"one without semicolon", "SELECT 1", []string{"SELECT 1"}},
		{"two", "SELECT 1;\nSELECT 2;\n", []string{"SELECT 1", "SELECT 2"}},
		{"empty statements dropped", ";;SELECT 1;; ;", []string{"SELECT 1"}},
		{"semicolon mid line", "SELECT 1; SELECT 2", []string{"SELECT 1", "SELECT 2"}},
		{"string with semicolon", "INSERT INTO t VALUES ('a;b');", []string{"INSERT INTO t VALUES ('a;b')"}},
		{"doubled quote", "SELECT 'it''s; fine';", []string{"SELECT 'it''s; fine'"}},
		{"string with comment markers", "SELECT '-- not a comment; /* nor this */';", []string{"SELECT '-- not a comment; /* nor this */'"}},
		{"E string backslash quote", `SELECT E'a\'; b';`, []string{`SELECT E'a\'; b'`}},
		{"backslash in plain string", `SELECT 'a\'; SELECT 2;`, []string{`SELECT 'a\'`, "SELECT 2"}},
		{"word ending in e is no E string", `SELECT name'x;y';`, []string{`SELECT name'x;y'`}},
		{"quoted identifier", `CREATE TABLE "a;b" ("c""d;" TEXT);`, []string{`CREATE TABLE "a;b" ("c""d;" TEXT)`}},
		{"line comment with semicolon", "SELECT 1 -- trailing; comment\n, 2;", []string{"SELECT 1 \n, 2"}},
		{"line comment at end of file", "SELECT 1; -- done", []string{"SELECT 1"}},
		{"block comment becomes a space", "SELECT/*;*/1;", []string{"SELECT 1"}},
		{"nested block comment", "SELECT 1 /* a /* b; */ c; */;", []string{"SELECT 1"}},
		{"dollar body", "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;",
			[]string{"CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql"}},
		{"tagged dollar body", "DO $body$ BEGIN PERFORM 'x;$$'; END $body$;",
			[]string{"DO $body$ BEGIN PERFORM 'x;$$'; END $body$"}},
		{"placeholders are not dollar quotes", "SELECT $1; SELECT $2;", []string{"SELECT $1", "SELECT $2"}},
		{"dollar inside identifier", "SELECT a$b$ FROM t; SELECT 2;", []string{"SELECT a$b$ FROM t", "SELECT 2"}},
		{"dialect placeholders kept", "CREATE TABLE t (id {{serial_pk}}, b {{blob}});", []string{"CREATE TABLE t (id {{serial_pk}}, b {{blob}})"}},
		{"CRLF", "SELECT 1;\r\nSELECT 2;\r\n", []string{"SELECT 1", "SELECT 2"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := SplitStatements(c.in)
			if err != nil {
				t.Fatalf("error %v", err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("SplitStatements(%q)\n got %q\nwant %q", c.in, got, c.want)
			}
		})
	}
}

func TestSplitStatementsRefusesUnterminated(t *testing.T) {
	for _, c := range []struct{ in, says string }{
		{"SELECT 1;\nSELECT 'abc;\nSELECT 2;", "line 2: unterminated string"},
		{`SELECT "abc;`, "unterminated quoted identifier"},
		{"SELECT 1; /* open\n", "line 1: unterminated /* comment"},
		{"SELECT 1 /* a /* b */;", "unterminated /* comment"},
		{"\n\nDO $x$ BEGIN; END $y$;", "line 3: unterminated $x$ body"},
		{`SELECT E'abc\';`, "unterminated string"},
	} {
		if got, err := SplitStatements(c.in); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("SplitStatements(%q) = %q, %v; want an error saying %q", c.in, got, err, c.says)
		}
	}
}

// FuzzSplitStatements: the splitter never panics, never returns a blank
// statement, and is stable: joining its statements with ";\n" and splitting
// again gives them back.
func FuzzSplitStatements(f *testing.F) {
	for _, s := range []string{
		"SELECT 1; SELECT 2",
		"INSERT INTO t VALUES ('a;b', E'c\\'d', \"e;\");",
		"-- c;\nSELECT 1 /* x; /* y */ */;",
		"DO $t$ ; $t$; SELECT $1;",
		"CREATE TABLE t (id {{serial_pk}});",
		"SELECT 'x",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		stmts, err := SplitStatements(in)
		if err != nil {
			return
		}
		for _, s := range stmts {
			if strings.Trim(s, asciiSpace) != s || s == "" {
				t.Fatalf("statement %q is blank or not trimmed", s)
			}
		}
		again, err := SplitStatements(strings.Join(stmts, ";\n"))
		if err != nil {
			t.Fatalf("re-split of %q: %v", stmts, err)
		}
		if !slices.Equal(again, stmts) {
			t.Fatalf("re-split changed the statements:\n first %q\nsecond %q", stmts, again)
		}
	})
}
