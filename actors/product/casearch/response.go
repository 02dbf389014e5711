package casearch

import (
	"slices"
	"strconv"
)

// WindowHours is `window_hours`: always 24.
const WindowHours = 24

// TopCallers is how many authors `top_callers` names.
const TopCallers = 5

// Summary is the `summary` object of a page.
type Summary struct {
	TotalTweets   int
	UniqueAuthors int
	TotalReach    int64
	TopCallers    []string // "@handle"
}

// Summarize sums up the returned posts: reach counts each post's author
// followers once per post; top callers are the authors of the five posts
// with the most followers (newest first among equals), so a handle may
// repeat.
func Summarize(hits []Hit) Summary {
	s := Summary{TotalTweets: len(hits), TopCallers: []string{}}
	authors := make(map[string]struct{}, len(hits))
	for i := range hits {
		authors[lowerASCII(hits[i].Handle)] = struct{}{}
		s.TotalReach += hits[i].Followers
	}
	s.UniqueAuthors = len(authors)
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		fa, fb := hits[a].Followers, hits[b].Followers
		switch {
		case fa > fb:
			return -1
		case fa < fb:
			return 1
		}
		return 0
	})
	for _, i := range order[:min(TopCallers, len(order))] {
		s.TopCallers = append(s.TopCallers, "@"+hits[i].Handle)
	}
	return s
}

// AppendData appends the response `data` object of a page.
func AppendData(b []byte, r *Request, res *Result) []byte {
	b = append(b, `{"tweets":[`...)
	for i := range res.Hits {
		if i > 0 {
			b = append(b, ',')
		}
		b = res.Hits[i].R.AppendItem(b)
		if o := res.Originals[i]; o != nil {
			b = append(b, `,"original":`...)
			b = append(b, o...)
		}
		b = append(b, '}')
	}
	s := Summarize(res.Hits)
	b = append(b, `],"summary":{"total_tweets":`...)
	b = strconv.AppendInt(b, int64(s.TotalTweets), 10)
	b = append(b, `,"unique_authors":`...)
	b = strconv.AppendInt(b, int64(s.UniqueAuthors), 10)
	b = append(b, `,"total_reach":`...)
	b = strconv.AppendInt(b, s.TotalReach, 10)
	b = append(b, `,"top_callers":[`...)
	for i, c := range s.TopCallers {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, c)
	}
	b = append(b, `]},"window_hours":`...)
	b = strconv.AppendInt(b, WindowHours, 10)
	if r.SinceRaw != nil {
		b = append(b, `,"since":`...)
		b = append(b, r.SinceRaw...)
	}
	if r.UntilRaw != nil {
		b = append(b, `,"until":`...)
		b = append(b, r.UntilRaw...)
	}
	b = append(b, `,"has_next_page":`...)
	b = appendBool(b, res.HasNext)
	b = append(b, `,"next_cursor":`...)
	if res.HasNext {
		b = appendString(b, r.EncodeCursor(res.Next))
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}
