package searchalerts

// Post is what an alert shows of a matching post.
type Post struct {
	TweetID     string
	Text        string
	ScreenName  string
	DisplayName string
}

// matched is a post that the words of queries matched.
type matched struct {
	post    Post
	queries []int64
}

// flush delivers what a query collected since its last flush.
type flush struct{ query int64 }

// removed forgets a deleted query.
type removed struct{ query int64 }
