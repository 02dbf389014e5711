package xapi

import (
	"errors"
	"net/http"
	"time"
)

// The reconnect schedules of the API's "Handling disconnections" guide
// (docs.x.com/x-api/fundamentals/handling-disconnections): reconnect at once
// after an established stream drops; then back off linearly by 250 ms up to
// 16 s for network errors, exponentially from 5 s up to 320 s for HTTP
// errors, and exponentially from 1 minute for 429s.
const (
	netStep   = 250 * time.Millisecond
	netMax    = 16 * time.Second
	httpFirst = 5 * time.Second
	httpMax   = 320 * time.Second
	rateFirst = time.Minute
	rateMax   = 16 * time.Minute // past one 15-minute window there is nothing more to wait for
)

// failure is the kind of a failed connection attempt.
type failure int

const (
	failNetwork failure = iota
	failHTTP
	failRate
)

// classify tells which schedule a failed attempt follows.
func classify(err error) failure {
	var ae *apiError
	if errors.As(err, &ae) {
		if ae.Status == http.StatusTooManyRequests {
			return failRate
		}
		return failHTTP
	}
	return failNetwork
}

// backoff counts consecutive failures of each kind.
type backoff struct{ network, http, rate int }

// next is the wait before the next attempt after a failure of kind f.
func (b *backoff) next(f failure) time.Duration {
	switch f {
	case failRate:
		b.rate++
		return doubled(rateFirst, b.rate, rateMax)
	case failHTTP:
		b.http++
		return doubled(httpFirst, b.http, httpMax)
	default:
		b.network++
		return min(time.Duration(b.network)*netStep, netMax)
	}
}

// reset starts the schedules over (after a stream was established).
func (b *backoff) reset() { *b = backoff{} }

func doubled(first time.Duration, n int, max time.Duration) time.Duration {
	d := first
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	return min(d, max)
}
