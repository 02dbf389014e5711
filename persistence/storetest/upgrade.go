package storetest

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	"github.com/alertd/alertd/persistence"
)

// UpgradePlace is an empty database that a test can first write with raw SQL,
// as an older binary would have, and then open with the current code.
type UpgradePlace struct {
	// DB is a raw handle on the database; the place closes it when t ends.
	DB *sql.DB
	// Types fills the {{name}} placeholders of LegacySteps (the dialect's).
	Types map[string]string
	// Open opens the store there with the current code.
	Open Opener
	// Schema describes the tables, columns and indexes of db as text, so
	// that two databases can be compared.
	Schema func(db *sql.DB) (string, error)
}

// legacyAppliedAt is the applied_at the legacy steps are recorded with, so a
// step re-recorded by the current code would show.
const legacyAppliedAt = 1_700_000_000_000

// RunUpgrade proves that a database migrated by the code of commit 1315c4c
// (LegacySteps, run the way that code ran them) opens with the current code
// without re-running any of those steps (only the ones added since run),
// keeps its rows, has the schema a fresh database gets, and takes writes. place must return a new, empty place each
// time it is called.
func RunUpgrade(t *testing.T, place func(t *testing.T) UpgradePlace) {
	old := place(t)
	if err := migrateLegacy(old.DB, old.Types); err != nil {
		t.Fatalf("legacy migration: %v", err)
	}
	for _, q := range []string{
		`INSERT INTO accounts (id, created_at) VALUES ('acct_old', 1700000000000)`,
		`INSERT INTO targets (account_id, handle, display_name, social_user_id, is_active, created_at)
			VALUES ('acct_old', 'whale', 'Whale', '42', TRUE, 1700000000000)`,
	} {
		if _, err := old.DB.Exec(q); err != nil {
			t.Fatalf("legacy rows: %v", err)
		}
	}
	stepsBefore := readSteps(t, old.DB)

	s, err := old.Open()
	must(t, "open the legacy database", err)
	defer s.Close()

	// The legacy steps stay as they were recorded; the steps added since
	// (migration 0008 on) run once, now.
	stepsAfter := readSteps(t, old.DB)
	if !strings.HasPrefix(stepsAfter, stepsBefore) {
		t.Errorf("the legacy steps changed on open:\nbefore %s\nafter  %s", stepsBefore, stepsAfter)
	}
	for _, line := range strings.Split(strings.TrimPrefix(stepsAfter, stepsBefore), "\n") {
		if line != "" && !strings.HasSuffix(line, " -1") {
			t.Errorf("a step after the legacy ones was not applied by this open: %s", line)
		}
	}
	schemaAfter, err := old.Schema(old.DB)
	must(t, "schema after", err)
	fresh := place(t)
	fs, err := fresh.Open()
	must(t, "open a fresh database", err)
	defer fs.Close()
	schemaFresh, err := fresh.Schema(fresh.DB)
	must(t, "fresh schema", err)
	if schemaFresh != schemaAfter {
		t.Errorf("a fresh database differs from an upgraded legacy one:\n%s", lineDiff(schemaAfter, schemaFresh))
	}
	versions := func(steps string) string { // each line's version
		var out []string
		for _, line := range strings.Split(steps, "\n") {
			v, _, _ := strings.Cut(line, " ")
			out = append(out, v)
		}
		return strings.Join(out, " ")
	}
	if got, want := versions(readSteps(t, fresh.DB)), versions(stepsAfter); got != want {
		t.Errorf("a fresh database records the versions %s, want %s", got, want)
	}

	ctx := t.Context()
	all, err := s.ListAllTargets(ctx)
	must(t, "ListAllTargets", err)
	if len(all) != 1 || all[0].Handle != "whale" || all[0].SocialUserID == nil || *all[0].SocialUserID != "42" {
		t.Fatalf("legacy target read back as %+v", all)
	}
	mustAccount(t, s, "acct_new")
	_, err = s.PutTarget(ctx, persistence.Target{AccountID: "acct_new", Handle: "whale", IsActive: true, CreatedAt: base})
	must(t, "PutTarget after upgrade", err)
	// A table of the last legacy step, and the delivery log of step 8.
	_, err = s.CreateSAQuery(ctx, persistence.SAQuery{AccountID: "acct_old", Text: "pump", Interval: "5m", CreatedAt: base})
	must(t, "CreateSAQuery after upgrade", err)
	must(t, "InsertDeliveries after upgrade", s.InsertDeliveries(ctx, []persistence.WebhookDelivery{
		{Scope: "xg", EndpointID: 1, DeliveryID: "up", Body: []byte("{}"), CreatedAt: base}}))
	must(t, "RecordAttempts after upgrade", s.RecordAttempts(ctx, "xg", []persistence.WebhookAttempt{
		{DeliveryID: "up", At: base, StatusCode: 200, Result: persistence.AttemptOK, Attempts: 1}}))
}

// migrateLegacy runs LegacySteps on db the way commit 1315c4c did: one
// transaction, the same schema_migrations table, one row per step.
func migrateLegacy(db *sql.DB, types map[string]string) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
		version    BIGINT PRIMARY KEY,
		name       TEXT NOT NULL,
		applied_at BIGINT NOT NULL
	)`); err != nil {
		return err
	}
	for _, m := range LegacySteps {
		for _, stmt := range m.Stmts {
			for k, v := range types {
				stmt = strings.ReplaceAll(stmt, "{{"+k+"}}", v)
			}
			if _, err := tx.Exec(stmt); err != nil {
				return fmt.Errorf("step %d: %w", m.Version, err)
			}
		}
		if _, err := tx.Exec(`INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
			m.Version, m.Name, int64(legacyAppliedAt)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// readSteps lists schema_migrations, one line per row.
func readSteps(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT version, name, applied_at FROM schema_migrations ORDER BY version`)
	must(t, "read schema_migrations", err)
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var v, at int64
		var name string
		must(t, "scan schema_migrations", rows.Scan(&v, &name, &at))
		if at != legacyAppliedAt {
			at = -1 // any other time: applied by the code under test
		}
		fmt.Fprintf(&b, "%d %s %d\n", v, name, at)
	}
	must(t, "read schema_migrations", rows.Err())
	return b.String()
}

// lineDiff lists the lines only in a (-) and only in b (+).
func lineDiff(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ina, inb := in(a), in(b)
	var out strings.Builder
	for _, l := range strings.Split(a, "\n") {
		if !inb[l] {
			out.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ina[l] {
			out.WriteString("+ " + l + "\n")
		}
	}
	return out.String()
}
