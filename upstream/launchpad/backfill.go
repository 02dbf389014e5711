package launchpad

import (
	"context"
	"github.com/alertd/alertd/upstream"
	"slices"
)

// backfillLimit is the most signatures one getSignaturesForAddress returns.
const backfillLimit = 1000

// backfill reads the program's transactions since the last one handed over
// (getSignaturesForAddress with until) and delivers them oldest first, as
// if they had been notified. A gap longer than backfillLimit transactions
// is backfilled from its newest end and the loss logged. False when ctx
// ended.
func (c *Connector) backfill(ctx context.Context, sink upstream.Sink) bool {
	log := c.cfg.Logger
	var sigs []signatureInfo
	err := call(ctx, c.cfg.HTTP, c.cfg.HTTPURL, "getSignaturesForAddress", []any{c.cfg.Program,
		map[string]any{"until": c.last, "limit": backfillLimit, "commitment": c.cfg.Commitment}}, &sigs)
	if err != nil {
		if ctx.Err() != nil {
			return false
		}
		log.Warn("launchpad backfill: signatures not read; the gap stays", "err", err)
		return true
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
				return false
			}
			log.Warn("launchpad backfill: transaction not read", "signature", s.Signature, "err", err)
			continue
		}
		if tx.Meta == nil || failed(tx.Meta.Err) {
			continue
		}
		c.stats.Backfilled.Add(1)
		if !c.deliver(ctx, sink, s.Signature, tx.Meta.LogMessages) {
			return false
		}
	}
	log.Info("launchpad backfill done", "transactions", len(sigs))
	return true
}
