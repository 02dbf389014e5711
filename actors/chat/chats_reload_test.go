package chat

import (
	"context"
	"fmt"
	"testing"

	"github.com/alertd/alertd/persistence"
)

// Two registries over one store are two nodes: a chat linked, moved or
// blocked on one is reloaded by the other from the account announced, and
// an account that gets its first chat there is followed (onLinked).
func TestChatsReloadByAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := newMemStore()
	a, b := NewChats(st), NewChats(st)
	var heard, linked []string
	a.SetOnChange(func(acct string) { heard = append(heard, acct) })
	b.SetOnLinked(func(acct string) { linked = append(linked, acct) })
	if err := a.Put(ctx, persistence.Chat{ChatID: 1, AccountID: "x", Kind: "private"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Put(ctx, persistence.Chat{ChatID: 2, AccountID: "y", Kind: "private"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(len(b.OfAccount("x")), len(b.OfAccount("y")), linked); got != "1 0 [x]" {
		t.Fatalf("after reloading x: %s", got)
	}
	if err := a.SetBlocked(ctx, 1, true); err != nil {
		t.Fatal(err)
	}
	if err := a.Put(ctx, persistence.Chat{ChatID: 2, AccountID: "x", Kind: "private"}); err != nil { // y's chat moves to x
		t.Fatal(err)
	}
	if err := b.Reload(ctx, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(b.Blocked(1), b.OfAccount("x"), heard, linked); got != fmt.Sprint(true, []persistence.Chat{{ChatID: 2, AccountID: "x", Kind: "private"}}, []string{"x", "y", "x", "x"}, []string{"x", "x"}) {
		t.Fatalf("after the block and the move: %s", got)
	}
}
