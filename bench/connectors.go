package bench

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/alertd/alertd/upstream/launchpad"
	"github.com/alertd/alertd/upstream/launchpad/launchpadfake"
	"github.com/alertd/alertd/upstream/xapi/xapifake"
)

// Sample inputs of the connectors' decoders, shared by the micro-benchmarks
// and cmd/connectorbench.

// XStreamLines are filtered-stream lines as the fake API writes them: a
// post, a reply, a quote and a repost, each with its includes.
func XStreamLines() [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	f := xapifake.New(xapifake.Options{})
	users := f.SeedAccounts(2)
	f.AddMedia(xapifake.Media{MediaKey: "3_1", Type: "photo", URL: "https://pbs.twimg.com/media/a.jpg"})
	parent := xapifake.RandomPost(r, users[1], "1860000000000000000", time.Now())
	f.AddPost(parent)
	var out [][]byte
	for i, ref := range []string{"", "replied_to", "quoted", "retweeted"} {
		p := xapifake.RandomPost(r, users[0], fmt.Sprint(1860000000000000001+i), time.Now())
		p.Attachments = &xapifake.Attachments{MediaKeys: []string{"3_1"}}
		if ref != "" {
			p.ReferencedTweets = []xapifake.Referenced{{Type: ref, ID: parent.ID}}
		}
		out = append(out, f.Line(p))
	}
	return out
}

// LaunchpadNotifications are logsNotification messages of a launch, a
// buy that completes a curve, and a plain trade.
func LaunchpadNotifications() [][]byte {
	dev, mint := launchpadfake.Address("dev"), launchpadfake.Address("mint")
	create := launchpadfake.CreateEvent{Name: "Dog Wif Hat Two", Symbol: "WIF2", URI: "https://ipfs.io/ipfs/Qm123", Mint: mint,
		BondingCurve: launchpadfake.Address("curve"), User: dev, Creator: dev, Timestamp: 1795248000}
	logs := [][]string{
		launchpadfake.Logs(launchpad.DefaultProgram, "Create", create.Data()),
		launchpadfake.Logs(launchpad.DefaultProgram, "Buy", launchpadfake.TradeEvent{Mint: mint}.Data(),
			launchpadfake.CompleteEvent{User: dev, Mint: mint, BondingCurve: create.BondingCurve, Timestamp: 1795248100}.Data()),
		launchpadfake.Logs(launchpad.DefaultProgram, "Sell", launchpadfake.TradeEvent{Mint: mint}.Data()),
	}
	var out [][]byte
	for i, l := range logs {
		out = append(out, launchpadfake.NotificationJSON(launchpadfake.Signature(fmt.Sprint(i)), l, 24041))
	}
	return out
}
