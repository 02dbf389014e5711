package eca

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// Two watchlists over one store are two nodes: an entry created, removed
// or matched on one is reloaded by the other from the account announced.
func TestReloadByAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := &memStore{}
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	a := NewWatchlist(st, syncJobs{}, 4*time.Hour, clk.now, quiet)
	b := NewWatchlist(st, syncJobs{}, 4*time.Hour, clk.now, quiet)
	var heard []string
	a.OnChange(func(acct string) { heard = append(heard, acct) })
	e, err := a.Create(ctx, "x", Criteria{Ticker: "WIF"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Create(ctx, "y", Criteria{Ticker: "WIF"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(len(b.Active("x")), len(b.Active("y"))); got != "1 0" {
		t.Fatalf("after reloading x: %s", got)
	}
	if err := a.Remove(ctx, "x", e.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(len(b.Active("x")), len(b.Active("y")), heard); got != "0 1 [x y x]" {
		t.Fatalf("after the remove and a full reload: %s", got)
	}
	if hs := b.match(launched("MINT", "CRE", "WIF", "Dog"), clk.now()); hitKeys(hs) != fmt.Sprintf("[y/%d/ticker]", e.ID+1) {
		t.Fatalf("b matches %s", hitKeys(hs))
	}
}
