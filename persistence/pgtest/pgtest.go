// Package pgtest gives tests a fresh PostgreSQL database.
//
// The server is the one named by $ALERTD_TEST_DATABASE_URL (a postgres:// URL
// of a database whose user may CREATE DATABASE). When that is unset, the first
// call in the test binary runs scripts/testpg.sh, which installs PostgreSQL if
// needed, starts (or finds) a throwaway local cluster and prints its URL. If
// neither works the test fails, saying why: it is skipped only under
// `go test -short`, the tier that runs without PostgreSQL.
package pgtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver

	"github.com/alertd/alertd/persistence/postgres"
)

// EnvURL names the variable that points the tests at a server.
const EnvURL = "ALERTD_TEST_DATABASE_URL"

// scriptPath is the script, relative to the repository root.
const scriptPath = "scripts/testpg.sh"

var (
	adminOnce sync.Once
	adminURL  string
	adminDB   *sql.DB
	adminErr  error
)

// URL creates a database alertd_test_<random> on the test server and returns
// its postgres:// URL. The database is dropped (connections and all) when t
// and its subtests finish.
func URL(t *testing.T) string {
	t.Helper()
	return Database(t)
}

// Database is URL for tests and benchmarks alike.
func Database(t testing.TB) string {
	t.Helper()
	return create(t, "")
}

// Migrated is URL, but the database already holds the store's schema: it is
// a copy (CREATE DATABASE ... TEMPLATE) of one that postgres.Open migrated
// once per test binary, which costs the server far less than migrating each
// test's database again. For tests that open the store; those that need an
// empty database (upgrades) use URL.
func Migrated(t testing.TB) string {
	t.Helper()
	connect(t)
	tmpl.once.Do(func() { tmpl.name, tmpl.err = makeTemplate() })
	if tmpl.err != nil {
		t.Fatalf("pgtest: migrated template database: %v", tmpl.err)
	}
	return create(t, tmpl.name)
}

// connect skips t under -short and connects to the test server once.
func connect(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("pgtest: -short runs without PostgreSQL")
	}
	adminOnce.Do(func() { adminURL, adminDB, adminErr = connectAdmin() })
	if adminErr != nil {
		t.Fatalf("pgtest: no PostgreSQL server for tests: %v", adminErr)
	}
}

// tmpl is the binary's migrated template database (Migrated); Close drops it.
var tmpl struct {
	once sync.Once
	name string
	err  error
}

// makeTemplate creates a database and migrates it by opening the store on it.
func makeTemplate() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name := randomName()
	if _, err := adminDB.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	s, err := postgres.Open(ctx, withDatabase(adminURL, name))
	if err != nil {
		_ = dropDatabase(ctx, name)
		return "", err
	}
	// Closing the pool ends its sessions; CREATE DATABASE ... TEMPLATE waits
	// a few seconds for the last of them to leave.
	s.Close()
	return name, nil
}

// randomName is a fresh database name that sweep recognises.
func randomName() string {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	return "alertd_test_" + hex.EncodeToString(rnd[:])
}

// withDatabase is url naming database name.
func withDatabase(raw, name string) string {
	u, _ := url.Parse(raw) // connectAdmin parsed it already
	u.Path = "/" + name
	u.RawPath = ""
	return u.String()
}

// create makes a database for t (a copy of template unless that is empty),
// dropped when t finishes, and returns its URL.
func create(t testing.TB, template string) string {
	t.Helper()
	connect(t)
	name := randomName()
	stmt := "CREATE DATABASE " + name
	if template != "" {
		stmt += " TEMPLATE " + template
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := adminDB.ExecContext(ctx, stmt); err != nil {
		t.Fatalf("pgtest: %s: %v", stmt, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := dropDatabase(ctx, name); err != nil {
			t.Errorf("pgtest: DROP DATABASE %s: %v", name, err)
		}
	})
	return withDatabase(adminURL, name)
}

// Close closes the connection to the test server, once every test of the
// binary is done (TestMain, before a goroutine leak check).
func Close() {
	adminOnce.Do(func() { adminErr = errors.New("pgtest: closed") })
	tmpl.once.Do(func() { tmpl.err = errors.New("pgtest: closed") })
	if adminDB != nil && tmpl.name != "" {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_ = dropDatabase(ctx, tmpl.name)
		cancel()
	}
	if adminDB != nil {
		adminDB.Close()
	}
}

// dropDatabase drops name, closing its connections first (a test may leave a
// server process behind it running for a moment).
func dropDatabase(ctx context.Context, name string) error {
	_, err := adminDB.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	if err == nil {
		return nil
	}
	// Before PostgreSQL 13 there is no FORCE.
	if _, err2 := adminDB.ExecContext(ctx,
		`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
		name); err2 != nil {
		return errors.Join(err, err2)
	}
	_, err = adminDB.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name)
	return err
}

// connectAdmin finds the test server and connects to it.
func connectAdmin() (string, *sql.DB, error) {
	raw := strings.TrimSpace(os.Getenv(EnvURL))
	from := "$" + EnvURL
	if raw == "" {
		var err error
		if raw, err = startLocal(); err != nil {
			return "", nil, fmt.Errorf("%s is unset and %s failed: %w", EnvURL, scriptPath, err)
		}
		from = scriptPath
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return "", nil, fmt.Errorf("%s gave %q: want a postgres:// URL", from, raw)
	}
	db, err := sql.Open("pgx", raw)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", from, err)
	}
	db.SetMaxOpenConns(4)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return "", nil, fmt.Errorf("cannot connect to the server from %s (%s): %w", from, redact(u), err)
	}
	sweep(db)
	return raw, db, nil
}

// sweep drops test databases that a killed test run left behind: those over
// two hours old with nobody connected. Best effort: reading a database's age
// takes a superuser (or pg_read_server_files), and errors are ignored.
func sweep(db *sql.DB) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, `SELECT d.datname FROM pg_database d
		WHERE d.datname LIKE 'alertd\_test\_%'
		AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)
		AND (pg_stat_file('base/' || d.oid || '/PG_VERSION')).modification < now() - interval '2 hours'`)
	if err != nil {
		return
	}
	var stale []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) == nil {
			stale = append(stale, name)
		}
	}
	rows.Close()
	for _, name := range stale {
		_, _ = db.ExecContext(ctx, `DROP DATABASE IF EXISTS "`+name+`"`)
	}
}

// startLocal runs scripts/testpg.sh and returns the URL it prints last.
func startLocal() (string, error) {
	script, err := findScript()
	if err != nil {
		return "", err
	}
	// Installing PostgreSQL from packages can take minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v; its output ends:\n%s", err, tail(stderr.String(), 2000))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(last, "postgres://") && !strings.HasPrefix(last, "postgresql://") {
		return "", fmt.Errorf("its last line of output is %q, not a postgres:// URL", last)
	}
	return last, nil
}

// findScript looks for scripts/testpg.sh in the working directory and its
// parents (go test runs in the package directory).
func findScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, scriptPath)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("%s not found in the working directory or its parents", scriptPath)
		}
		dir = parent
	}
}

func redact(u *url.URL) string {
	c := *u
	if c.User != nil {
		if _, ok := c.User.Password(); ok {
			c.User = url.UserPassword(c.User.Username(), "xxxxx")
		}
	}
	return c.String()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
