package searchalerts

// Sink is a client socket as the actor sees it: Send must not block.
type Sink interface {
	Send(frame []byte) bool
}

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

// subscribe adds a socket of account.
type subscribe struct {
	account string
	sink    Sink
}

// unsubscribe removes a socket.
type unsubscribe struct{ sink Sink }
