//go:build linux

package main

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// The plot is drawn by hand on an image.RGBA (no plotting dependency): left,
// latency percentiles against offered deliveries per second; right, p99 of
// each second of every measured run.

var (
	colWhite = color.RGBA{255, 255, 255, 255}
	colAxis  = color.RGBA{60, 60, 60, 255}
	colGrid  = color.RGBA{225, 225, 225, 255}
	colGoal  = color.RGBA{200, 40, 40, 255}
	series   = []color.RGBA{{31, 119, 180, 255}, {255, 127, 14, 255}, {214, 39, 40, 255}, {44, 160, 44, 255},
		{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}}
)

type canvas struct{ img *image.RGBA }

func (c canvas) dot(x, y int, col color.RGBA, r int) {
	for dx := -r; dx <= r; dx++ {
		for dy := -r; dy <= r; dy++ {
			if dx*dx+dy*dy <= r*r+r {
				c.img.SetRGBA(x+dx, y+dy, col)
			}
		}
	}
}

// line draws from (x0,y0) to (x1,y1); dash > 0 leaves gaps of dash pixels.
func (c canvas) line(x0, y0, x1, y1 int, col color.RGBA, width, dash int) {
	n := max(abs(x1-x0), abs(y1-y0), 1)
	for i := 0; i <= n; i++ {
		if dash > 0 && (i/dash)%2 == 1 {
			continue
		}
		x := x0 + (x1-x0)*i/n
		y := y0 + (y1-y0)*i/n
		if width <= 1 {
			c.img.SetRGBA(x, y, col)
		} else {
			c.dot(x, y, col, width/2)
		}
	}
}

func (c canvas) text(x, y int, s string, col color.RGBA) {
	d := font.Drawer{Dst: c.img, Src: image.NewUniform(col), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}

func textWidth(s string) int { return 7 * len(s) }

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// panel maps data to a rectangle: x linear, y log10 of milliseconds.
type panel struct {
	c                      canvas
	x0, y0, x1, y1         int
	xmin, xmax, lymin, lym float64
}

func (p *panel) px(x float64) int {
	return p.x0 + int(math.Round((x-p.xmin)/(p.xmax-p.xmin)*float64(p.x1-p.x0)))
}

func (p *panel) py(ms float64) int {
	l := math.Log10(math.Max(ms, 1e-3))
	return p.y1 - int(math.Round((l-p.lymin)/(p.lym-p.lymin)*float64(p.y1-p.y0)))
}

func (p *panel) frame(title, xlabel string, xticks []float64, xfmt func(float64) string) {
	c := p.c
	// y grid: 1-2-5 steps in ms
	for e := math.Floor(p.lymin); e <= p.lym; e++ {
		for _, m := range []float64{1, 2, 5} {
			v := m * math.Pow(10, e)
			if l := math.Log10(v); l < p.lymin-1e-9 || l > p.lym+1e-9 {
				continue
			}
			y := p.py(v)
			c.line(p.x0, y, p.x1, y, colGrid, 1, 0)
			lab := msLabel(v)
			c.text(p.x0-8-textWidth(lab), y+4, lab, colAxis)
		}
	}
	for _, x := range xticks {
		px := p.px(x)
		c.line(px, p.y0, px, p.y1, colGrid, 1, 0)
		lab := xfmt(x)
		c.text(px-textWidth(lab)/2, p.y1+16, lab, colAxis)
	}
	c.line(p.x0, p.y1, p.x1, p.y1, colAxis, 1, 0)
	c.line(p.x0, p.y0, p.x0, p.y1, colAxis, 1, 0)
	c.text(p.x0+(p.x1-p.x0-textWidth(title))/2, p.y0-12, title, colAxis)
	c.text(p.x0+(p.x1-p.x0-textWidth(xlabel))/2, p.y1+34, xlabel, colAxis)
}

func msLabel(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%gs", v/1000)
	case v >= 1:
		return fmt.Sprintf("%gms", v)
	}
	return fmt.Sprintf("%gms", v)
}

func (p *panel) hline(ms float64, label string, col color.RGBA) {
	if l := math.Log10(ms); l < p.lymin || l > p.lym {
		return
	}
	y := p.py(ms)
	p.c.line(p.x0, y, p.x1, y, col, 1, 6)
	p.c.text(p.x1-textWidth(label)-4, y-4, label, col)
}

func (p *panel) polyline(xs, ys []float64, col color.RGBA, markers bool) {
	for i := range xs {
		x, y := p.px(xs[i]), p.py(ys[i])
		if i > 0 {
			p.c.line(p.px(xs[i-1]), p.py(ys[i-1]), x, y, col, 2, 0)
		}
		if markers {
			p.c.dot(x, y, col, 3)
		}
	}
}

func (p *panel) legend(names []string, cols []color.RGBA) {
	w := 0
	for _, n := range names {
		w = max(w, textWidth(n))
	}
	for x := p.x0 + 4; x < p.x0+44+w && x < p.x1; x++ { // white box behind
		for y := p.y0 + 2; y < p.y0+6+15*len(names); y++ {
			p.c.img.SetRGBA(x, y, colWhite)
		}
	}
	y := p.y0 + 14
	for i, n := range names {
		p.c.line(p.x0+10, y-4, p.x0+30, y-4, cols[i], 2, 0)
		p.c.text(p.x0+36, y, n, colAxis)
		y += 15
	}
}

// ratePoint is one rate's percentiles (ms); the base rate uses the medians.
type ratePoint struct {
	kdeliv         float64 // offered deliveries/s, thousands
	p50, p99, p999 float64
}

func (rep *report) ratePoints() []ratePoint {
	msOf := func(r *runResult, q float64) float64 { return float64(r.pct(q)) / 1e6 }
	var pts []ratePoint
	if len(rep.base) > 0 {
		r := rep.base[0]
		pts = append(pts, ratePoint{kdeliv: float64(r.rate*r.watchers) / 1000,
			p50:  median(rep.base, func(r *runResult) float64 { return msOf(r, 50) }),
			p99:  median(rep.base, func(r *runResult) float64 { return msOf(r, 99) }),
			p999: median(rep.base, func(r *runResult) float64 { return msOf(r, 99.9) })})
	}
	for _, r := range rep.sweep {
		pts = append(pts, ratePoint{kdeliv: float64(r.rate*r.watchers) / 1000, p50: msOf(r, 50), p99: msOf(r, 99), p999: msOf(r, 99.9)})
	}
	slices.SortFunc(pts, func(a, b ratePoint) int { return int(a.kdeliv - b.kdeliv) })
	return pts
}

func (rep *report) plot() ([]byte, error) {
	const W, H = 1100, 480
	c := canvas{image.NewRGBA(image.Rect(0, 0, W, H))}
	for i := range c.img.Pix {
		c.img.Pix[i] = 255
	}
	c.text(20, 20, fmt.Sprintf("alertd fan-out, %d sessions, %d deliveries per post, %s (load %s)",
		rep.o.sessions, rep.w.watchers, rep.started.Format("2006-01-02"), rep.loadStart), colAxis)

	// y range over everything shown
	lo, hi := math.Inf(1), math.Inf(-1)
	pts := rep.ratePoints()
	for _, p := range pts {
		lo, hi = math.Min(lo, p.p50), math.Max(hi, p.p999)
	}
	runs := append(slices.Clone(rep.base), rep.sweep...)
	for _, r := range runs {
		for _, h := range r.perSecond {
			if h.TotalCount() > 0 {
				v := float64(h.ValueAtQuantile(99)) / 1000
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1, 100
	}
	hi = math.Max(hi, 60) // keep the 50 ms goal in view
	lymin := math.Floor(math.Log10(math.Max(lo, 0.05)))
	lymax := math.Ceil(math.Log10(hi))

	// left: percentiles per rate
	left := &panel{c: c, x0: 80, y0: 60, x1: 520, y1: 420, lymin: lymin, lym: lymax}
	if len(pts) > 0 {
		left.xmin, left.xmax = 0, pts[len(pts)-1].kdeliv*1.1
	} else {
		left.xmin, left.xmax = 0, 1
	}
	left.frame("latency percentiles per rate", "offered deliveries per second (thousands)",
		niceTicks(left.xmin, left.xmax), func(x float64) string { return fmt.Sprintf("%g", x) })
	left.hline(rep.o.p99Target.Seconds()*1000, "p99 goal", colGoal)
	left.hline(goalBaseP99.Seconds()*1000, "p99 goal at 50k/s", colGoal)
	xs := make([]float64, len(pts))
	var p50, p99, p999 []float64
	for i, p := range pts {
		xs[i] = p.kdeliv
		p50, p99, p999 = append(p50, p.p50), append(p99, p.p99), append(p999, p.p999)
	}
	left.polyline(xs, p50, series[0], true)
	left.polyline(xs, p99, series[1], true)
	left.polyline(xs, p999, series[2], true)
	left.legend([]string{"p50", "p99", "p99.9"}, series[:3])

	// right: p99 of each second, per run
	right := &panel{c: c, x0: 640, y0: 60, x1: 1070, y1: 420, lymin: lymin, lym: lymax}
	maxSec := 1.0
	for _, r := range runs {
		maxSec = math.Max(maxSec, float64(len(r.perSecond)))
	}
	right.xmin, right.xmax = 0, maxSec
	right.frame("p99 of each second", "seconds since the run started", niceTicks(0, maxSec),
		func(x float64) string { return fmt.Sprintf("%g", x) })
	right.hline(rep.o.p99Target.Seconds()*1000, "p99 goal", colGoal)
	var names []string
	var cols []color.RGBA
	for i, r := range runs {
		col := series[i%len(series)]
		var xs, ys []float64
		for s, h := range r.perSecond {
			if h.TotalCount() > 0 {
				xs, ys = append(xs, float64(s)+0.5), append(ys, float64(h.ValueAtQuantile(99))/1000)
			}
		}
		right.polyline(xs, ys, col, false)
		names, cols = append(names, fmt.Sprintf("%s (%s/s)", r.label, num(float64(r.rate*r.watchers)))), append(cols, col)
	}
	right.legend(names, cols)

	var buf bytes.Buffer
	if err := png.Encode(&buf, c.img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// niceTicks returns about five round ticks from lo to hi.
func niceTicks(lo, hi float64) []float64 {
	span := hi - lo
	if span <= 0 {
		return []float64{lo}
	}
	step := math.Pow(10, math.Floor(math.Log10(span/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 6 {
			step *= m
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		out = append(out, v)
	}
	return out
}
