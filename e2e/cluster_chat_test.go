package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/edge/telegram/telegramfake"
	"github.com/alertd/alertd/engine/cluster"
	"github.com/alertd/alertd/internal/testkit"
)

// TestE2EClusterChat: with three nodes and one Bot API (the fake), one node
// polls for updates and each command is answered once; a post ingested on
// any node reaches each linked chat once, sent by the chat's owner; after a
// SIGKILL of the node that owns a group chat with messages queued (a call
// in flight, the rest paced) and that polls, the rest arrive from a
// survivor within 60 s, none twice, and a survivor answers the commands.
func TestE2EClusterChat(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no end-to-end tests")
	}
	t.Parallel()
	fake := telegramfake.New()
	t.Cleanup(fake.Close) // after the nodes' stops
	cl := newCluster(t, 3)
	cl.args = []string{"--telegram-bot-token", telegramfake.Token, "--telegram-api-url", fake.URL()}
	// The group is owned by node A, which starts alone and so polls.
	group := int64(-1009001)
	for cluster.OwnerOf(cl.addrs, cluster.Part("chat", group)) != cl.addrs[0] {
		group--
	}
	const user = 9001

	a := cl.start(t, 0)
	k := a.xgKey(t, "pro")
	wantSay(t, fake, user, user, "/link "+k.key, "Linked")
	n := len(telegramfake.Sent(fake.Calls(""), group))
	fake.Inject(telegramfake.Message(group, user, "/start"))
	if txt := telegramfake.Text(waitSent(t, fake, group, n)[n]); !strings.Contains(txt, "This group now receives") {
		t.Fatalf("/start in the group answered %q", txt)
	}
	// Chat links are read when a node starts (engine/cluster doc): B and C
	// start once the chats are linked.
	b, c := cl.start(t, 1), cl.start(t, 2)
	nodes := []*server{a, b, c}
	for _, s := range nodes {
		s.waitMembers(t, cl.name, cl.addrs)
	}
	handles := clusterUsers(t, nodes, 3)
	wantSay(t, fake, user, user, "/track "+strings.Join(handles, " "), "Now tracking")
	for _, s := range nodes {
		testkit.WaitFor(t, syncWait, "the tracked list on "+s.base, func() (bool, string) {
			r := s.do(t, "GET", "/v1/accounts", bearer(k.key), nil)
			return r.status == 200 && r.wantOK(t, 200).num(t, "count") == 3, r.String()
		})
	}

	// Every alert once in each chat, whichever node ingested the post.
	var posts []jsonMap
	for i, h := range handles {
		p := postObs(h, "post", fmt.Sprintf("chat once %d", i))
		nodes[i].send(t, p)
		posts = append(posts, p)
	}
	for _, p := range posts {
		alertOf(t, fake, user, p)
		alertOf(t, fake, group, p)
	}

	// A's call to the group hangs; the other alerts wait for the group's pace.
	fake.Hold(group)
	var queued []jsonMap
	for i, h := range handles {
		p := postObs(h, "post", fmt.Sprintf("chat failover %d", i))
		nodes[i].send(t, p)
		queued = append(queued, p)
	}
	for _, p := range queued {
		alertOf(t, fake, user, p)
	}
	testkit.WaitFor(t, chatWait, "A's call to the group in flight", func() (bool, string) {
		return fake.Holding() == 1, fmt.Sprint(fake.Holding())
	})
	if m := fake.MaxPolls(); m != 1 {
		t.Errorf("%d getUpdates at once, want 1 (one node polls)", m)
	}
	if n := len(fake.Calls("setMyCommands")); n != 1 {
		t.Errorf("setMyCommands called %d times, want once (by the node that polls)", n)
	}
	killed := time.Now()
	killNode(t, a)
	testkit.WaitFor(t, chatWait, "the dead node's call gone", func() (bool, string) { return fake.Holding() == 0, "" })
	fake.Release(group)
	deadline := time.Until(killed.Add(60 * time.Second))
	calls, ok := fake.Wait(deadline, func(cs []telegramfake.Call) bool {
		sent := telegramfake.Sent(cs, group)
		for _, p := range queued {
			if mentions(sent, p) == 0 {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("the group's queued alerts did not all arrive within 60 s of the SIGKILL; sends:\n%s",
			telegramfake.String(telegramfake.Sent(calls, group)))
	}
	t.Logf("the dead owner's queued alerts arrived %v after its SIGKILL", time.Since(killed).Round(time.Millisecond))

	// A survivor polls from the stored offset: a command is answered once.
	tracking := func() int {
		n := 0
		for _, s := range telegramfake.Sent(fake.Calls(""), user) {
			if strings.Contains(telegramfake.Text(s), "Tracking 3/") {
				n++
			}
		}
		return n
	}
	before := tracking() // the answer to /track says it too
	wantSay(t, fake, user, user, "/list", "Tracking 3/")
	wantSay(t, fake, user, user, "/help", "") // a fence: answered after /list
	if n := tracking() - before; n != 1 {
		t.Errorf("/list answered %d times, want once", n)
	}
	sent := telegramfake.Sent(fake.Calls(""), user)
	// Nothing twice (checked last: by now a second sender would have sent).
	gsent := telegramfake.Sent(fake.Calls(""), group)
	for _, p := range append(posts, queued...) {
		if n := mentions(sent, p); n != 1 {
			t.Errorf("post %s: %d alerts in the private chat, want 1", p["id"], n)
		}
		if n := mentions(gsent, p); n != 1 {
			t.Errorf("post %s: %d alerts in the group, want 1", p["id"], n)
		}
	}
}
