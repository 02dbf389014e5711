package sqlstore

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/alertd/alertd/persistence/storetest"
)

// TestMigrationsMatchLegacy: the embedded files up to the legacy steps' last
// hold the same versions and the same statements, up to layout, as the Go
// steps they replaced, so a database of either kind has the same schema
// (later files are new steps, run on both alike).
func TestMigrationsMatchLegacy(t *testing.T) {
	ms, err := Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < len(storetest.LegacySteps) {
		t.Fatalf("%d migrations, want at least the %d legacy steps", len(ms), len(storetest.LegacySteps))
	}
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for i, m := range ms[:len(storetest.LegacySteps)] {
		old := storetest.LegacySteps[i]
		if m.Version != old.Version {
			t.Errorf("migration %d has version %d, want %d", i, m.Version, old.Version)
		}
		if len(m.Stmts) != len(old.Stmts) {
			t.Errorf("version %d (%s): %d statements, want %d", m.Version, m.Name, len(m.Stmts), len(old.Stmts))
			continue
		}
		for j := range m.Stmts {
			if got, want := flat(m.Stmts[j]), flat(old.Stmts[j]); got != want {
				t.Errorf("version %d statement %d:\n got %s\nwant %s", m.Version, j, got, want)
			}
		}
	}
}

func TestParseMigrations(t *testing.T) {
	sql := &fstest.MapFile{Data: []byte("CREATE TABLE a (x TEXT);\nCREATE TABLE b (y TEXT);\n")}
	ms, err := parseMigrations(fstest.MapFS{
		"m/0001_first_thing.sql": sql,
		"m/0002_second.sql":      sql,
		"m/README.md":            {Data: []byte("not a migration")},
	}, "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Version != 1 || ms[0].Name != "first_thing" || ms[1].Version != 2 || len(ms[1].Stmts) != 2 {
		t.Errorf("parsed %+v", ms)
	}
	for name, files := range map[string]fstest.MapFS{
		"gap":            {"m/0001_a.sql": sql, "m/0003_c.sql": sql},
		"repeat":         {"m/0001_a.sql": sql, "m/0001_b.sql": sql},
		"no name":        {"m/0001.sql": sql},
		"short number":   {"m/1_a.sql": sql},
		"not a number":   {"m/000a_a.sql": sql},
		"starts at zero": {"m/0000_a.sql": sql},
		"empty file":     {"m/0001_a.sql": {Data: []byte("-- nothing\n")}},
		"unterminated":   {"m/0001_a.sql": {Data: []byte("SELECT 'x;\n")}},
		"missing dir":    {},
	} {
		if ms, err := parseMigrations(files, "m"); err == nil {
			t.Errorf("%s: parsed %+v, want an error", name, ms)
		}
	}
}

func TestDialectExpand(t *testing.T) {
	for _, d := range []Dialect{SQLite, Postgres} {
		ms, err := Migrations()
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			for _, s := range m.Stmts {
				if e := d.expand(s); strings.Contains(e, "{{") {
					t.Errorf("%s: version %d: placeholder left in %q", d.Name, m.Version, e)
				}
			}
		}
	}
}
