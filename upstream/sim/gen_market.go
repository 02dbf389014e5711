package sim

import (
	"math"
	"slices"
	"strings"

	"github.com/alertd/alertd/protocol"
)

// maxCalls is how many called tokens move at once.
const maxCalls = 12

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// launch creates a token of a creator wallet.
func (g *generator) launch() *token {
	r := g.r
	w := g.w
	t := &token{
		wallet: w.wallets[w.byWallet.pick(r)].addr,
		mint:   r.solAddr(),
		curve:  r.solAddr(),
		mcap:   r.uniform(27.9, 35),
	}
	t.uri = "https://ipfs.example.com/ipfs/" + r.ipfsCID()
	if r.chance(0.8) {
		// Names repeat across launches, as copycat tokens do (ECA matches).
		tn := pick(r, tokenNames)
		t.name, t.sym = tn.name, tn.sym
	} else {
		a, b := pick(r, handleWords), pick(r, handleTails)
		t.name = titleWords(a) + " " + titleWords(b)
		t.sym = strings.ToUpper(a[:min(len(a), 3)] + b[:min(len(b), 2)])
	}
	if len(w.tokens) >= 300 {
		w.tokens = slices.Delete(w.tokens, 0, 1)
	}
	w.tokens = append(w.tokens, t)
	return t
}

// recentToken picks one of the last 100 launches that satisfies ok.
func (g *generator) recentToken(ok func(*token) bool) *token {
	var cand []*token
	ts := g.w.tokens
	for i := len(ts) - 1; i >= 0 && i >= len(ts)-100; i-- {
		if ok(ts[i]) {
			cand = append(cand, ts[i])
		}
	}
	if len(cand) == 0 {
		return nil
	}
	return pick(g.r, cand)
}

func (g *generator) genLaunchpad() []byte {
	r := g.r
	var t *token
	ev := protocol.LaunchTokenLaunched
	switch x := r.Float64(); {
	case x < 0.22:
		if t = g.recentToken(func(t *token) bool { return !t.live && !t.graduated }); t != nil {
			ev, t.live = protocol.LaunchLivestreamStarted, true
		}
	case x < 0.38:
		if t = g.recentToken(func(t *token) bool { return t.live }); t != nil {
			ev, t.live = protocol.LaunchLivestreamEnded, false
		}
	case x < 0.44:
		if t = g.recentToken(func(t *token) bool { return !t.graduated }); t != nil {
			ev, t.graduated, t.mcap = protocol.LaunchGraduated, true, r.uniform(405, 470)
		}
	}
	if t == nil {
		t = g.launch()
	} else if ev != protocol.LaunchGraduated {
		t.mcap = min(max(t.mcap*r.uniform(0.8, 1.6), 20), 400)
	}
	return encode(protocol.KindLaunchpad, &protocol.LaunchpadObs{
		EventType: ev, WalletAddress: t.wallet, Mint: t.mint, TokenName: t.name, TokenSymbol: t.sym,
		Creator: t.wallet, BondingCurve: t.curve, URI: t.uri, Signature: r.solSig(), MarketCap: round2(t.mcap),
	})
}

// peakMultiple draws how far a called token will run: most stay under 2x,
// some reach 2x, 5x or 10x.
func (g *generator) peakMultiple() float64 {
	r := g.r
	switch x := r.Float64(); {
	case x < 0.45:
		return r.uniform(1.2, 1.9)
	case x < 0.75:
		return r.uniform(2.1, 4.8)
	case x < 0.90:
		return r.uniform(5.2, 9.5)
	default:
		return r.uniform(10.5, 30)
	}
}

func (g *generator) genCallout() []byte {
	r := g.r
	w := g.w
	c := pick(r, w.callers)
	var tr *callTrack
	if len(w.calls) > 0 && r.chance(0.15) {
		tr = pick(r, w.calls) // a second caller on a running token
	} else {
		tr = &callTrack{rising: true, peak: g.peakMultiple()}
		if t := g.recentToken(func(t *token) bool { return true }); t != nil && r.chance(0.7) {
			tr.mint, tr.creator, tr.name, tr.sym = t.mint, t.wallet, t.name, t.sym
		} else {
			tn := pick(r, tokenNames)
			tr.mint, tr.creator, tr.name, tr.sym = r.solAddr(), w.wallets[w.byWallet.pick(r)].addr, tn.name, tn.sym
		}
		tr.base = math.Round(r.logUniform(5000, 150000))
		tr.cur = tr.base
		if len(w.calls) >= maxCalls {
			// Forget the oldest falling token, or the oldest one.
			k := slices.IndexFunc(w.calls, func(c *callTrack) bool { return !c.rising })
			w.calls = slices.Delete(w.calls, max(k, 0), max(k, 0)+1)
		}
		w.calls = append(w.calls, tr)
	}
	mc := round2(tr.cur)
	return encode(protocol.KindCallout, &protocol.CalloutObs{
		CallerWallet: c.wallet, CallerUsername: c.username, Mint: tr.mint, Creator: tr.creator,
		TokenName: tr.name, TokenSymbol: tr.sym, CalloutMcap: mc, MarketCap: mc,
		AmountHeld: math.Round(r.logUniform(1e5, 3e7)), CostBasisSOL: round2(r.logUniform(0.1, 15)),
		Thesis: pick(r, theses),
	})
}

// genMarketCap moves one called token along its path: up to its peak, then
// down until it is forgotten.
func (g *generator) genMarketCap() (int, []byte) {
	r := g.r
	w := g.w
	if len(w.calls) == 0 {
		return kCallout, g.genCallout()
	}
	// Running tokens get most of the updates, so that paths play out.
	k := r.IntN(len(w.calls))
	if r.chance(0.7) {
		var rising []int
		for i, c := range w.calls {
			if c.rising {
				rising = append(rising, i)
			}
		}
		if len(rising) > 0 {
			k = pick(r, rising)
		}
	}
	tr := w.calls[k]
	tr.steps++
	if tr.rising {
		if r.chance(0.1) {
			tr.cur *= r.uniform(0.88, 0.97)
		} else {
			tr.cur *= r.uniform(1.08, 1.45)
		}
		if tr.cur >= tr.base*tr.peak {
			tr.cur, tr.rising = tr.base*tr.peak, false
		}
	} else {
		tr.cur *= r.uniform(0.78, 0.97)
	}
	line := encode(protocol.KindMarketCap, &protocol.MarketCapObs{Mint: tr.mint, MarketCap: round2(tr.cur)})
	if !tr.rising && (tr.cur < tr.base*0.35 || tr.steps > 80) {
		w.calls = slices.Delete(w.calls, k, k+1)
	}
	return kMarketCap, line
}
