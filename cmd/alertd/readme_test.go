package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// updateREADME rewrites the README's settings table from the flag table
// (go generate ./cmd/alertd, or go test ./cmd/alertd -run TestREADMESettings -update-readme).
var updateREADME = flag.Bool("update-readme", false, "rewrite the settings table of README.md from serveFlags")

const (
	readmePath = "../../README.md"
	tableBegin = "<!-- settings table: generated from serveFlags in cmd/alertd/config.go by `go generate ./cmd/alertd`; do not edit -->"
	tableEnd   = "<!-- end of settings table -->"
)

// settingsTable renders serveFlags as the README's markdown table: flag,
// environment variable, default, meaning.
func settingsTable() string {
	var b strings.Builder
	b.WriteString("| flag | env | default | meaning |\n|---|---|---|---|\n")
	fs := newServeFlagSet(defaultServeSettings())
	for _, f := range serveFlags {
		env := ""
		if f.Env != "" {
			env = "`" + f.Env + "`"
		}
		fmt.Fprintf(&b, "| `--%s` | %s | %s | %s |\n", f.Name, env, defaultText(f, fs.Lookup(f.Name)), markdownEscaper.Replace(f.Usage))
	}
	return b.String()
}

var markdownEscaper = strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;")

// defaultText is a flag's default as the table shows it.
func defaultText(f serveFlag, fl *flag.Flag) string {
	v := fl.DefValue
	switch {
	case f.Name == "check-config":
		return ""
	case v == "":
		return "empty"
	case v == "false":
		return "off"
	}
	if _, err := time.ParseDuration(v); err == nil && strings.HasSuffix(v, "s") {
		v = strings.TrimSuffix(v, "0s") // 720h0m0s -> 720h0m, 15m0s -> 15m
		if strings.HasSuffix(v, "h0m") {
			v = strings.TrimSuffix(v, "0m") // -> 720h
		}
	}
	return "`" + v + "`"
}

// TestREADMESettings: the README's settings table is the flag table, so
// the manual and `alertd serve --help` cannot diverge.
func TestREADMESettings(t *testing.T) {
	raw, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	i, j := strings.Index(readme, tableBegin), strings.Index(readme, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("README.md has no generated settings table (markers %q ... %q)", tableBegin, tableEnd)
	}
	want := tableBegin + "\n" + settingsTable() + tableEnd
	if got := readme[i : j+len(tableEnd)]; got != want {
		if *updateREADME {
			if err := os.WriteFile(readmePath, []byte(readme[:i]+want+readme[j+len(tableEnd):]), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		t.Errorf("README.md's settings table differs from serveFlags; run `go generate ./cmd/alertd`. Want:\n%s", want)
	}
}
