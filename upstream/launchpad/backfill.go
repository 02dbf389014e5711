package launchpad

import (
	"context"
	"slices"
)

// backfillLimit is the most signatures one getSignaturesForAddress returns.
const backfillLimit = 1000

// txLogs is a backfilled transaction's logs.
type txLogs struct {
	sig  string
	logs []string
}

// backfill reads the program's transactions after until (the last one
// notified before the socket dropped) with getSignaturesForAddress and
// getTransaction, and passes them on oldest first, as if they had been
// notified. A gap longer than backfillLimit transactions is backfilled from
// its newest end, and the loss logged.
func (c *Connector) backfill(ctx context.Context, until string, out chan<- txLogs) {
	log := c.cfg.Logger
	var sigs []signatureInfo
	err := call(ctx, c.cfg.HTTP, c.cfg.HTTPURL, "getSignaturesForAddress", []any{c.cfg.Program,
		map[string]any{"until": until, "limit": backfillLimit, "commitment": c.cfg.Commitment}}, &sigs)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("launchpad backfill: signatures not read; the gap stays", "err", err)
		}
		return
	}
	if len(sigs) == backfillLimit {
		log.Warn("launchpad backfill: gap longer than one page; older transactions stay missing", "read", len(sigs))
	}
	slices.Reverse(sigs) // newest first on the wire
	for _, s := range sigs {
		if failed(s.Err) {
			continue
		}
		var tx transaction
		err := call(ctx, c.cfg.HTTP, c.cfg.HTTPURL, "getTransaction", []any{s.Signature,
			map[string]any{"encoding": "json", "maxSupportedTransactionVersion": 0, "commitment": c.cfg.Commitment}}, &tx)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			log.Warn("launchpad backfill: transaction not read", "signature", s.Signature, "err", err)
			continue
		}
		if tx.Meta == nil || failed(tx.Meta.Err) {
			continue
		}
		c.stats.Backfilled.Add(1)
		select {
		case out <- txLogs{sig: s.Signature, logs: tx.Meta.LogMessages}:
		case <-ctx.Done():
			return
		}
	}
	log.Info("launchpad backfill done", "transactions", len(sigs))
}
