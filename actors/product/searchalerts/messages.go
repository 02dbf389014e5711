package searchalerts

// Post is what an alert shows of a matching post.
type Post struct {
	TweetID     string
	Text        string
	ScreenName  string
	DisplayName string
}

// The actor also takes the handle actors' *handle.PostSeen (Service.Hear).

// flush delivers what a query collected since its last flush.
type flush struct{ query int64 }

// removed forgets a deleted query.
type removed struct{ query int64 }
